import { type Devnet, devnetEnv, serveLocal, startDevnet } from '@agents/devnet'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { PaymentsConfigError } from './errors.ts'
import { decodeBase64Json } from './headers.ts'
import { paid } from './paid.ts'
import { paymentsFromEnv } from './payments-from-env.ts'
import { createMemoryReceiptStore } from './receipt-store.ts'
import { paymentSignatureHeader } from './testing/sign-authorization.ts'
import type { RequirementV2 } from './x402/requirements.ts'

let devnet: Devnet
let url: string
let close: () => Promise<void>

beforeAll(async () => {
  devnet = await startDevnet()
  const deps = paymentsFromEnv(devnetEnv(devnet), { store: createMemoryReceiptStore() })
  const app = new Hono()
  app.post('/doc', paid(deps, { price: { amount: 1_000_000n }, description: 'doc_submit' }), (c) =>
    c.json({ ok: true }),
  )
  ;({ url, close } = await serveLocal(app.fetch))
}, 60_000)
afterAll(async () => {
  await close?.()
  await devnet?.stop()
})

const problemsOf = (env: Record<string, string | undefined>) => {
  try {
    paymentsFromEnv(env, { store: createMemoryReceiptStore() })
    return []
  } catch (error) {
    expect(error).toBeInstanceOf(PaymentsConfigError)
    return (error as PaymentsConfigError).problems
  }
}

describe('paymentsFromEnv', () => {
  test('default: the devnet settings give a route both rails, and both pay', async () => {
    const challenge = await fetch(`${url}/doc`, { method: 'POST' })
    expect(challenge.status).toBe(402)
    expect(challenge.headers.get('www-authenticate')).toMatch(/^Payment /)
    const { accepts } = decodeBase64Json(challenge.headers.get('payment-required')!) as {
      accepts: RequirementV2[]
    }
    expect(accepts.map((accept) => [accept.network, accept.payTo])).toEqual([
      ['eip155:8453', devnet.accounts.payee],
    ])

    const x402 = await fetch(`${url}/doc`, {
      method: 'POST',
      headers: {
        'payment-signature': await paymentSignatureHeader(devnet.accounts.payer, accepts[0]!),
      },
    })
    expect(x402.status).toBe(200)

    const before = await devnet.tempoBalance!(devnet.accounts.payee)
    const mpp = await devnet.mppFetch!()(`${url}/doc`, { method: 'POST' })
    expect(mpp.status).toBe(200)
    expect((await devnet.tempoBalance!(devnet.accounts.payee)) - before).toBe(1_000_000n)
  })

  test('errors: NODE_ENV=production refuses the devnet settings, every problem at once', () => {
    expect(problemsOf({ ...devnetEnv(devnet), NODE_ENV: 'production' })).toEqual([
      'the devnet cannot take payments in production; configure real payment settings',
      'the facilitator URL must be https',
      'the facilitator URL points at a local or private address',
    ])
  })

  test('errors: missing or malformed settings are named', () => {
    expect(problemsOf({})).toEqual([
      'PAYMENTS_FACILITATOR_URL is not set: start through `npm start` (devnet) or configure a facilitator',
      'PAYMENTS_PAY_TO is not set: no one to pay',
    ])
    expect(problemsOf({ NODE_ENV: 'production', PAYMENTS_PAY_TO: devnet.accounts.payee })).toEqual([
      'PAYMENTS_FACILITATOR_URL is not set: start through `npm start` (devnet) or configure a facilitator',
    ])
    const malformed = problemsOf({ PAYMENTS_PAY_TO: 'me', PAYMENTS_FACILITATOR_HEADERS: '{"a":1}' })
    expect(malformed.join('\n')).toMatch(/PAYMENTS_PAY_TO: expected a 0x address/)
    expect(malformed.join('\n')).toMatch(
      /PAYMENTS_FACILITATOR_HEADERS: expected a JSON object of strings/,
    )
  })

  test('default: real production settings pass', () => {
    expect(
      problemsOf({
        NODE_ENV: 'production',
        PAYMENTS_FACILITATOR_URL: 'https://facilitator.example.com',
        PAYMENTS_FACILITATOR_HEADERS: '{"authorization":"Bearer k"}',
        PAYMENTS_PAY_TO: devnet.accounts.payee,
        PAYMENTS_MPP_SECRET: 'x'.repeat(40),
        PAYMENTS_TEMPO_RPC_URL: 'https://rpc.tempo.example.com',
      }),
    ).toEqual([])
  })
})
