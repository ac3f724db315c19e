import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { defineBaseDevnet } from '../chains/start-base-chain.ts'
import { DEVNET_PRIVATE_KEYS } from '../devnet-accounts.ts'
import { type Devnet, startDevnet } from '../start-devnet.ts'
import { signTestPayment } from './sign-test-payment.ts'
import { startFacilitator } from './start-facilitator.ts'

let devnet: Devnet
let rpc: Server
let rpcUrl: string
const hidden = new Map<string, number>()

// Anvil (automine) can report a transaction's block before its receipt can
// be read. A JSON-RPC node in front of it that answers the first two receipt
// lookups of each transaction with null, as anvil does in that window, and
// forwards everything else.
beforeAll(async () => {
  devnet = await startDevnet({ tempo: false })
  rpc = createServer(async (request, response) => {
    let body = ''
    for await (const chunk of request) body += chunk
    const call = JSON.parse(body) as { id: number; method: string; params: string[] }
    if (call.method === 'eth_getTransactionReceipt') {
      const misses = hidden.get(call.params[0]!) ?? 0
      if (misses < 2) {
        hidden.set(call.params[0]!, misses + 1)
        response.setHeader('content-type', 'application/json')
        response.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: null }))
        return
      }
    }
    const upstream = await fetch(devnet.base.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    }).catch(() => undefined)
    response.statusCode = upstream ? 200 : 502
    response.setHeader('content-type', 'application/json')
    response.end(upstream ? await upstream.text() : '{}')
  })
  await new Promise<void>((resolve) => rpc.listen(0, '127.0.0.1', resolve))
  rpcUrl = `http://127.0.0.1:${(rpc.address() as AddressInfo).port}`
})

afterAll(async () => {
  rpc?.close()
  await devnet?.stop()
})

test('a settle whose receipt is missing at first asks again, without waiting for another block', async () => {
  const facilitator = await startFacilitator({
    rpcUrl,
    chain: defineBaseDevnet(rpcUrl),
    privateKey: DEVNET_PRIVATE_KEYS.facilitator,
    receiptPollingMs: 5,
  })
  try {
    const body = await signTestPayment(devnet, 10_000n)
    const before = await devnet.usdcBalance(devnet.accounts.payee)

    // Nothing else is sent, so no later block comes: a wait for the next block would hang here.
    const settled = await fetch(`${facilitator.url}/settle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5_000),
    })

    expect(await settled.json()).toMatchObject({ success: true })
    expect([...hidden.values()]).toEqual([2])
    expect((await devnet.usdcBalance(devnet.accounts.payee)) - before).toBe(10_000n)
  } finally {
    await facilitator.stop()
  }
})
