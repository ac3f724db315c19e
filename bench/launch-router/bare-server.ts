// The HTTP baseline: node:http answering the router's list_pads JSON, nothing else.
import { createServer } from 'node:http'

const body = process.env.BODY ?? '{}'
createServer((request, response) => {
  if (request.url === '/health') {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}')
    return
  }
  // Read the request body, as the router must, before answering.
  request.on('data', () => {})
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(body)
  })
}).listen(Number(process.env.PORT), '127.0.0.1')
