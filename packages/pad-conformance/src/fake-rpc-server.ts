import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type RpcCall = { method: string; params: unknown[] }
export type RpcAnswer = (call: RpcCall) => { result: unknown } | undefined

/**
 * An Ethereum JSON-RPC server over real HTTP on an ephemeral port: it answers
 * the calls `answer` knows (single or batched, JSON-RPC 2.0), records every
 * call, and answers any other with error -32601, so an SDK given
 * `http(url)` meets the real protocol and a read nobody expected fails loudly.
 */
export const startFakeRpcServer = async (answer: RpcAnswer) => {
  const calls: RpcCall[] = []
  const reply = (request: { id: unknown; method: string; params?: unknown[] }) => {
    const call = { method: request.method, params: request.params ?? [] }
    calls.push(call)
    const answered = answer(call)
    return answered
      ? { jsonrpc: '2.0', id: request.id, result: answered.result }
      : {
          jsonrpc: '2.0',
          id: request.id,
          error: {
            code: -32601,
            message: `the method ${request.method} does not exist/is not available`,
          },
        }
  }
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      const json = JSON.stringify(Array.isArray(body) ? body.map(reply) : reply(body))
      response.writeHead(200, { 'content-type': 'application/json' }).end(json)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A block as eth_getBlockByNumber returns it (hex quantities), at `timestamp` seconds. */
export const fakeBlock = (number: number, timestamp: number) => ({
  number: `0x${number.toString(16)}`,
  hash: `0x${'ab'.repeat(32)}`,
  parentHash: `0x${'cd'.repeat(32)}`,
  nonce: '0x0000000000000000',
  sha3Uncles: `0x${'00'.repeat(32)}`,
  logsBloom: `0x${'00'.repeat(256)}`,
  transactionsRoot: `0x${'00'.repeat(32)}`,
  stateRoot: `0x${'00'.repeat(32)}`,
  receiptsRoot: `0x${'00'.repeat(32)}`,
  miner: `0x${'00'.repeat(20)}`,
  difficulty: '0x0',
  totalDifficulty: '0x0',
  extraData: '0x',
  size: '0x220',
  gasLimit: '0x1c9c380',
  gasUsed: '0x0',
  timestamp: `0x${timestamp.toString(16)}`,
  baseFeePerGas: '0x3b9aca00',
  mixHash: `0x${'00'.repeat(32)}`,
  transactions: [],
  uncles: [],
})
