import {
  type CdpFacilitator,
  createCdpApiKey,
  type Devnet,
  devnetEnv,
  serveLocal,
  startCdpFacilitator,
} from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { decodeBase64Json } from './headers.ts'
import { paymentsHealth } from './health.ts'
import type { LedgerDatabase } from './ledger/ledger.ts'
import { paymentsFromEnv } from './payments-from-env.ts'
import { sellTestItem } from './testing/sell-test-item.ts'
import { paymentSignatureHeader } from './testing/sign-authorization.ts'
import { countDeliveries, openTestShopDatabase } from './testing/test-shop.ts'
import type { RequirementV2 } from './x402/requirements.ts'

// The paid loop with Coinbase's facilitator authentication, for real: the
// devnet's facilitator settles on anvil, behind the CDP stand-in that lets
// a call through only with a fresh CDP JWT, as api.cdp.coinbase.com does.
const keys = { ES256: createCdpApiKey('ec'), EdDSA: createCdpApiKey('ed25519') }
let devnet: Devnet
let cdp: CdpFacilitator
let db: LedgerDatabase
let closeDb: () => Promise<void>
const servers: { close: () => Promise<void> }[] = []

beforeAll(async () => {
  devnet = await sharedDevnet()
  cdp = await startCdpFacilitator({
    upstream: devnet.facilitator.url,
    keys: Object.values(keys),
  })
  ;({ db, close: closeDb } = await openTestShopDatabase())
}, 60_000)
afterAll(async () => {
  for (const server of servers) await server.close()
  await cdp?.stop()
  await closeDb?.()
  await devnet?.stop()
})

/** A shop whose payments reach the facilitator only through the CDP stand-in. */
const shopWith = async (key: (typeof keys)[keyof typeof keys]) => {
  const deps = paymentsFromEnv(
    {
      ...devnetEnv(devnet),
      PAYMENTS_FACILITATOR_URL: cdp.url,
      PAYMENTS_FACILITATOR_AUTH: 'cdp',
      CDP_API_KEY_ID: key.id,
      CDP_API_KEY_SECRET: key.secret,
    },
    { db },
  )
  await deps.ready
  const app = new Hono()
  app.post('/doc', (c) =>
    sellTestItem(deps, c.req.raw, { price: { amount: 1_000_000n }, description: 'doc_submit' }),
  )
  const server = await serveLocal(app.fetch)
  servers.push(server)
  return { deps, url: server.url }
}

describe('x402 through a facilitator requiring CDP JWTs', () => {
  test.each(Object.entries(keys))(
    '%s key: a payment is verified, settled on-chain and delivered once; /supported answers',
    async (_alg, key) => {
      const { deps, url } = await shopWith(key)
      const before = cdp.calls().length
      const challenge = await fetch(`${url}/doc`, { method: 'POST' })
      expect(challenge.status).toBe(402)
      const { accepts } = decodeBase64Json(challenge.headers.get('payment-required')!) as {
        accepts: RequirementV2[]
      }
      const item = `cdp doc ${key.id}`
      const paid = await fetch(`${url}/doc`, {
        method: 'POST',
        headers: {
          'payment-signature': await paymentSignatureHeader(devnet.accounts.payer, accepts[0]!),
        },
        body: JSON.stringify({ item }),
      })
      expect(paid.status).toBe(200)
      const { transaction } = decodeBase64Json(paid.headers.get('payment-response')!) as {
        transaction: `0x${string}`
      }
      const onChain = await devnet.base.publicClient.getTransactionReceipt({ hash: transaction })
      expect(onChain.status).toBe('success')
      expect(onChain.logs.map((log) => log.address.toLowerCase())).toContain(
        devnet.base.usdc.toLowerCase(),
      )
      expect(await countDeliveries(db, item)).toBe(1)
      expect((await paymentsHealth(deps)).facilitator).toBe('ok')

      const calls = cdp.calls().slice(before)
      expect(calls.map((call) => [call.method, call.path, call.status, call.kid])).toEqual([
        ['POST', '/platform/v2/x402/verify', 200, key.id],
        ['POST', '/platform/v2/x402/settle', 200, key.id],
        ['GET', '/platform/v2/x402/supported', 200, key.id],
      ])
      // A fresh JWT per call: no nonce twice (the stand-in refuses a replayed one).
      expect(new Set(calls.map((call) => call.nonce)).size).toBe(3)
    },
  )
})
