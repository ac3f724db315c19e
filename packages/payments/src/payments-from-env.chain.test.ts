import { type Devnet, devnetEnv, serveLocal } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { PaymentsConfigError } from './errors.ts'
import { decodeBase64Json } from './headers.ts'
import type { LedgerDatabase } from './ledger/ledger.ts'
import { paymentsFromEnv } from './payments-from-env.ts'
import { sellTestItem } from './testing/sell-test-item.ts'
import { paymentSignatureHeader } from './testing/sign-authorization.ts'
import { countDeliveries, openTestShopDatabase } from './testing/test-shop.ts'
import type { RequirementV2 } from './x402/requirements.ts'

let devnet: Devnet
let url: string
let close: () => Promise<void>
let db: LedgerDatabase
let closeDb: () => Promise<void>
let deps: ReturnType<typeof paymentsFromEnv>

beforeAll(async () => {
  devnet = await sharedDevnet()
  ;({ db, close: closeDb } = await openTestShopDatabase())
  deps = paymentsFromEnv(devnetEnv(devnet), { db })
  const app = new Hono()
  app.post('/doc', (c) =>
    sellTestItem(deps, c.req.raw, { price: { amount: 1_000_000n }, description: 'doc_submit' }),
  )
  ;({ url, close } = await serveLocal(app.fetch))
}, 60_000)
afterAll(async () => {
  await close?.()
  await closeDb?.()
  await devnet?.stop()
})

const problemsOf = (env: Record<string, string | undefined>) => {
  try {
    paymentsFromEnv(env, { db })
    return []
  } catch (error) {
    expect(error).toBeInstanceOf(PaymentsConfigError)
    return (error as PaymentsConfigError).problems
  }
}

/** Settings a real deployment would use: public https endpoints, mainnet chains. */
const production = () => ({
  NODE_ENV: 'production',
  PAYMENTS_FACILITATOR_URL: 'https://facilitator.example.com',
  PAYMENTS_FACILITATOR_HEADERS: '{"authorization":"Bearer k"}',
  PAYMENTS_BASE_RPC_URL: 'https://base.rpc.example.com',
  PAYMENTS_PAY_TO: devnet.accounts.payee,
  PAYMENTS_MPP_SECRET: 'x'.repeat(40),
  PAYMENTS_TEMPO_RPC_URL: 'https://rpc.tempo.example.com',
})

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
      body: JSON.stringify({ item: 'x402 doc' }),
    })
    expect(x402.status).toBe(200)
    expect(await countDeliveries(db, 'x402 doc')).toBe(1)

    const before = await devnet.tempoBalance!(devnet.accounts.payee)
    const mpp = await devnet.mppFetch!()(`${url}/doc`, {
      method: 'POST',
      body: JSON.stringify({ item: 'mpp doc' }),
    })
    expect(mpp.status).toBe(200)
    expect((await devnet.tempoBalance!(devnet.accounts.payee)) - before).toBe(1_000_000n)
    expect(await countDeliveries(db, 'mpp doc')).toBe(1)
  })

  test('default: the devnet settings give the reconciler both chains, and a lease covering verify and settle', async () => {
    expect(await deps.chain.probe()).toEqual({
      base: { ok: true, block: expect.stringMatching(/^\d+$/) },
      tempo: { ok: true, block: expect.stringMatching(/^\d+$/) },
    })
    // Two facilitator calls of 10 s each, plus 5 s.
    expect(deps.leaseSeconds).toBe(25)
    expect(deps.reconcileIntervalMs).toBe(15_000)
    expect(
      paymentsFromEnv({ ...devnetEnv(devnet), PAYMENTS_FACILITATOR_TIMEOUT_MS: '1500' }, { db })
        .leaseSeconds,
    ).toBe(8)
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
    expect(problemsOf({ ...production(), PAYMENTS_BASE_RPC_URL: 'not a url' }).join('\n')).toMatch(
      /PAYMENTS_BASE_RPC_URL/,
    )
  })

  test('errors: MPP needs both its secret and its Tempo RPC', () => {
    const { PAYMENTS_TEMPO_RPC_URL: _rpc, ...withoutRpc } = production()
    expect(problemsOf(withoutRpc)).toEqual(['MPP needs PAYMENTS_TEMPO_RPC_URL'])
    const { PAYMENTS_MPP_SECRET: _secret, ...withoutSecret } = production()
    expect(problemsOf(withoutSecret)).toEqual(['MPP needs PAYMENTS_MPP_SECRET'])
  })

  test('errors: production refuses x402 on Base without PAYMENTS_BASE_RPC_URL (lost settle answers could never be resolved)', () => {
    const { PAYMENTS_BASE_RPC_URL: _rpc, ...withoutRpc } = production()
    expect(problemsOf(withoutRpc)).toEqual([
      'x402 on Base needs PAYMENTS_BASE_RPC_URL to reconcile lost settle answers',
    ])
    // Outside production it starts: a lost settle answer then stays unknown until an RPC is set.
    expect(problemsOf({ ...withoutRpc, NODE_ENV: 'development' })).toEqual([])
  })

  test('default: real production settings pass', () => {
    expect(problemsOf(production())).toEqual([])
  })

  test('default: production with the Solana rail only needs no Base RPC', () => {
    expect(
      problemsOf({
        NODE_ENV: 'production',
        PAYMENTS_FACILITATOR_URL: 'https://facilitator.example.com',
        PAYMENTS_SOLANA_PAY_TO: 'Hub1111111111111111111111111111111111111111',
      }),
    ).toEqual([])
  })
})
