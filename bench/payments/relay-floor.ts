// The floor of any paid route in front of a facilitator: a bare route on
// the services' own stack (Hono on @hono/node-server) that forwards one
// payment to `/verify` and `/settle` with the payments library's client and
// answers JSON. No credential, ledger, database or goods: what is left is
// the route's own HTTP exchange, the part of a paid route's overhead no
// venue code can remove. With a ledger (the ledger floor), also the two
// writes exactly-once needs: the floor of any paid route that keeps a ledger.
import { serveLocal } from '@agents/devnet'
import {
  type FacilitatorSettings,
  facilitatorSettle,
  facilitatorVerify,
  type RequirementV2,
} from '@agents/payments'
import { signAuthorization } from '@agents/payments/testing'
import { Hono } from 'hono'
import type { PrivateKeyAccount } from 'viem/accounts'
import { type BenchClient, postJson } from './direct-settlement.ts'

/** What the ledger floor needs of a database: one parameterised query. */
export type FloorDatabase = { query: (text: string, params: unknown[]) => Promise<unknown> }

/**
 * The relay on an ephemeral port: `answerBytes` of JSON back, as large as
 * the product's answer. With a `ledger`, the ledger floor: also the two
 * durable writes exactly-once needs and nothing else, in plain SQL on the
 * driver (no ORM): a claim row committed beside `/verify` (before any
 * settle call goes out), and the receipt after `/settle` (before the answer).
 */
export const startRelay = async (
  facilitator: FacilitatorSettings,
  { ledger, answerBytes = 1_000 }: { ledger?: FloorDatabase; answerBytes?: number } = {},
) => {
  await ledger?.query(
    'create table if not exists floor_ledger (reference text primary key, state text not null, receipt jsonb, updated_at timestamptz not null default now())',
    [],
  )
  const filler = 'x'.repeat(answerBytes)
  const app = new Hono()
  app.post('/pay', async (c) => {
    const body = await c.req.json()
    const reference = String(body.paymentPayload.payload.authorization.nonce)
    const [verified] = await Promise.all([
      facilitatorVerify(facilitator, body),
      ledger?.query(`insert into floor_ledger (reference, state) values ($1, 'settling')`, [
        reference,
      ]),
    ])
    if (!verified.ok || !verified.value.isValid) return c.json({ error: 'not verified' }, 402)
    const settled = await facilitatorSettle(facilitator, body)
    if (!settled.ok || !settled.value.success)
      return c.json({ error: 'not settled', settle: settled }, 502)
    await ledger?.query(
      `update floor_ledger set state = 'settled', receipt = $2, updated_at = now() where reference = $1 and state = 'settling'`,
      [
        reference,
        JSON.stringify({ transaction: settled.value.transaction, payer: settled.value.payer }),
      ],
    )
    return c.json({ ok: true, transaction: settled.value.transaction, filler })
  })
  const { url, close } = await serveLocal(app.fetch)
  return { url: `${url}/pay`, close }
}

/** One payment through the relay, timed from the request to the parsed answer (signing is not). */
export const measureRelay = async (
  relayUrl: string,
  payer: PrivateKeyAccount,
  requirement: RequirementV2,
  client: BenchClient = 'undici',
) => {
  const payload = await signAuthorization(payer, requirement)
  const body = JSON.stringify({
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirement, payload },
    paymentRequirements: requirement,
  })
  const started = performance.now()
  const { status, answer } = await postJson(
    client,
    relayUrl,
    { 'content-type': 'application/json' },
    body,
  )
  const elapsed = performance.now() - started
  if (status !== 200) throw new Error(`relay answered ${status}: ${JSON.stringify(answer)}`)
  return elapsed
}
