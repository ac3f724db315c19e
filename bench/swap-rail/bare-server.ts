// The baseline of the offers read: node:http answering the same JSON, read
// once from BODY_FILE, to every request. No routing, no database, no JSON work.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const body = readFileSync(process.env.BODY_FILE!)
const server = createServer((_, response) => {
  response.writeHead(200, { 'content-type': 'application/json' }).end(body)
}).listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`)
})
