import { createServer } from 'node:http'
import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { xPaymentHeader } from '@agents/payments/testing'
import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { type Address, createWalletClient, erc20Abi, http } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { admitPersona, uniqueHandle } from '../test-helpers.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from '../testing.ts'

// The devnet's USDC stands in for the studio token (any ERC-20 reads the same), priced at $1.00
// by a price API stand-in: a wallet given 100 tokens holds $100, one given 40 holds $40.
const prices = createServer((_request, response) => {
  response.setHeader('content-type', 'application/json')
  response.end(JSON.stringify({ usd: '1.00' }))
})
// A moderation stand-in (OpenAI's /moderations shape) a test can take down: the safety check
// then cannot run, and it fails closed.
let moderationDown = false
const moderation = createServer((request, response) => {
  let body = ''
  request.on('data', (chunk) => (body += chunk))
  request.on('end', () => {
    response.statusCode = moderationDown ? 503 : 200
    response.setHeader('content-type', 'application/json')
    // An array input gets one result per text, in order, as OpenAI answers it.
    const { input } = JSON.parse(body) as { input: string | string[] }
    const count = Array.isArray(input) ? input.length : 1
    const result = { flagged: false, categories: {} }
    response.end(JSON.stringify({ results: Array.from({ length: count }, () => result) }))
  })
})
let priceUrl = ''
let moderationUrl = ''
let devnet: Devnet
beforeAll(async () => {
  await new Promise<void>((resolve) => prices.listen(0, '127.0.0.1', resolve))
  priceUrl = `http://127.0.0.1:${(prices.address() as { port: number }).port}/price`
  await new Promise<void>((resolve) => moderation.listen(0, '127.0.0.1', resolve))
  moderationUrl = `http://127.0.0.1:${(moderation.address() as { port: number }).port}/v1`
  devnet = await sharedDevnet({ tempo: false })
}, 120_000)
afterAll(async () => {
  await devnet?.stop()
  await new Promise<void>((resolve) => prices.close(() => resolve()))
  await new Promise<void>((resolve) => moderation.close(() => resolve()))
})

/** A fresh wallet given `tokens` whole studio tokens by the devnet's payer. */
const holder = async (tokens: bigint) => {
  const account = privateKeyToAccount(generatePrivateKey())
  if (tokens > 0n) {
    const wallet = createWalletClient({
      account: devnet.accounts.payer,
      transport: http(devnet.base.rpcUrl),
    })
    const hash = await wallet.writeContract({
      address: devnet.base.usdc,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [account.address as Address, tokens * 1_000_000n],
      chain: null,
    })
    await devnet.base.publicClient.waitForTransactionReceipt({ hash })
  }
  return account
}

/**
 * An x402 v1 `exact` payment header for a 402's first option, as the chat page builds it
 * (EIP-3009 signed by the wallet): kept, so a test can send the same payment twice.
 */
const signPayment = (option: {
  payTo: Address
  maxAmountRequired: string
  maxTimeoutSeconds: number
  asset: Address
  network: `${string}:${string}`
  extra: { name: string; version: string }
}) =>
  xPaymentHeader(devnet.accounts.payer2, {
    ...option,
    scheme: 'exact',
    amount: option.maxAmountRequired,
  })

const ANSWERS = [
  'I restore old sailboats and read too much history.',
  'Someone curious who likes slow Sunday mornings.',
  'long-term',
  'honesty, kindness',
  'sailing, history',
  'none',
  'calm and a little nerdy',
  'none',
]

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'submitting the drafted doc on $name',
  ({ open }) => {
    let venue: Venue
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      venue = await startTestVenue({
        devnet,
        databaseUrl: database.url,
        env: {
          VENUE_STUDIO_TOKEN: devnet.base.usdc,
          VENUE_STUDIO_RPC_URL: devnet.base.rpcUrl,
          VENUE_STUDIO_PRICE_URL: priceUrl,
          MODERATION_URL: moderationUrl,
          SAFETY_TIMEOUT_MS: '1000',
        },
      })
    }, 120_000)
    afterAll(async () => {
      await venue?.close()
      await drop?.()
    })

    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      postJson(`${venue.url}${path}`, body, headers)
    const me = async (cookie: string) =>
      // biome-ignore lint/suspicious/noExplicitAny: tests read the answer by path
      (await (await fetch(`${venue.url}/api/chat/me`, { headers: { cookie } })).json()) as any
    const review = (body: unknown, token = TEST_ADMIN_TOKEN) =>
      post('/admin/actions/review', body, { authorization: `Bearer ${token}` })
    const count = async (sql: string, parameters: unknown[] = []) =>
      Number(((await venue.deps.database.client.query(sql, parameters)).rows[0] as { n: number }).n)
    const paidSubmit = (cookie: string, body: unknown) =>
      devnet
        .x402Fetch(devnet.accounts.payer2)(`${venue.url}/api/chat/submit-doc`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie },
          body: JSON.stringify(body),
        })
        .then(async (response) => ({
          status: response.status,
          // biome-ignore lint/suspicious/noExplicitAny: tests read the answer by path
          json: (await response.json()) as any,
        }))

    /** A signed-in adult wallet holding `tokens` dollars of the studio token, its draft answered. */
    const drafted = async (
      tokens: bigint,
      { answers = ANSWERS, attest = true }: { answers?: string[]; attest?: boolean } = {},
    ) => {
      const account: PrivateKeyAccount = await holder(tokens)
      const session = await signInToChat(venue.url, { account, attest: true })
      for (const answer of answers) {
        const turn = await post('/api/chat/draft', { answer }, { cookie: session.cookie })
        expect(turn.json.accepted).toBe(true)
      }
      if (!attest)
        await venue.deps.database.client.query(
          'UPDATE chat_wallets SET adult_attested_at = NULL WHERE wallet = $1',
          [session.wallet],
        )
      return session
    }

    const nothingCharged = async (run: () => Promise<void>) => {
      const payee = await devnet.usdcBalance(devnet.accounts.payee)
      const personas = await count('SELECT count(*)::int AS n FROM personas')
      const orders = await count('SELECT count(*)::int AS n FROM orders')
      await run()
      expect(await devnet.usdcBalance(devnet.accounts.payee)).toBe(payee)
      expect(await count('SELECT count(*)::int AS n FROM personas')).toBe(personas)
      expect(await count('SELECT count(*)::int AS n FROM orders')).toBe(orders)
    }

    it('401 signed out, 403 without the attestation, 403 cross-site, 400 bad bodies', async () => {
      await nothingCharged(async () => {
        const signedOut = await post('/api/chat/submit-doc', { handle: uniqueHandle('aoe') })
        expect(signedOut).toMatchObject({
          status: 401,
          json: { error: 'sign in with your wallet first' },
        })
        const unattested = await drafted(100n, { attest: false })
        expect(await paidSubmit(unattested.cookie, { handle: uniqueHandle('aoe') })).toMatchObject({
          status: 403,
          json: { error: 'attest that you are 18 or older first' },
        })
        const { cookie } = await drafted(100n)
        const crossSite = await post(
          '/api/chat/submit-doc',
          { handle: uniqueHandle('aoe') },
          { cookie, origin: 'https://elsewhere.example' },
        )
        expect(crossSite.status).toBe(403)
        for (const body of [
          {},
          { handle: '' },
          { handle: ' padded' },
          { handle: 'venue' },
          { handle: uniqueHandle('aoe'), extra: true },
          { handle: uniqueHandle('aoe'), homeMarket: 'mars' },
          { handle: uniqueHandle('aoe'), contactRef: 'x'.repeat(201) },
        ]) {
          const answer = await post('/api/chat/submit-doc', body, { cookie })
          expect(answer.status, JSON.stringify(body)).toBe(400)
          expect(answer.json.error).toBe('invalid submission')
        }
      })
    })

    it('an incomplete draft is 400 naming the fields still missing', async () => {
      await nothingCharged(async () => {
        const { cookie } = await drafted(100n, { answers: ANSWERS.slice(0, 2) })
        const answer = await paidSubmit(cookie, { handle: uniqueHandle('aoe') })
        expect(answer.status).toBe(400)
        expect(answer.json.missing).toEqual(['relationship_intent', 'values', 'interests'])
        expect(answer.json.error).toContain('missing: relationship_intent, values, interests')
      })
    })

    it('the entry rule before any 402: a holding under $50 is 403 with what it holds and needs', async () => {
      await nothingCharged(async () => {
        for (const tokens of [0n, 40n]) {
          const { cookie } = await drafted(tokens)
          const answer = await paidSubmit(cookie, { handle: uniqueHandle('aoe') })
          expect(answer.status).toBe(403)
          expect(answer.json).toMatchObject({
            holdingUsd: `${tokens}.00`,
            neededUsd: '50.00',
          })
          expect(answer.json.error).toContain('at least $50.00 of the studio token')
        }
      })
    })

    it('the chaperone refusing the heart is 422 with its reason, before any 402', async () => {
      await nothingCharged(async () => {
        const answers = [...ANSWERS]
        answers[0] = 'I am looking for a sugar baby to spoil.'
        const { cookie } = await drafted(100n, { answers })
        const answer = await paidSubmit(cookie, { handle: uniqueHandle('aoe') })
        expect(answer.status).toBe(422)
        expect(answer.json.error).toBe('the chaperone did not pass this doc: nothing was charged')
        expect(answer.json.reason).toBeTruthy()
      })
    })

    it('a safety check that cannot run: submit-doc 503 (nothing charged), approval 503 (still held)', async () => {
      const { cookie } = await drafted(100n)
      const held = await drafted(100n)
      const { personaId } = (await paidSubmit(held.cookie, { handle: uniqueHandle('aoe') })).json
      moderationDown = true
      try {
        await nothingCharged(async () => {
          const answer = await paidSubmit(cookie, { handle: uniqueHandle('aoe') })
          expect(answer).toMatchObject({
            status: 503,
            json: { error: 'safety check unavailable: nothing was charged; retry later' },
          })
        })
        expect(await review({ personaId, decision: 'approve' })).toMatchObject({
          status: 503,
          json: {
            error: 'safety check unavailable: the persona stays held for review; retry later',
          },
        })
        expect((await me(held.cookie)).review.status).toBe('held for review')
      } finally {
        moderationDown = false
      }
    })

    it('402 for doc_submit (1.00 USDC) once every check passes; paid: held for review, on the wallet, sealed', async () => {
      const session = await drafted(100n)
      const handle = uniqueHandle('aoe')
      const unpaid = await post(
        '/api/chat/submit-doc',
        { handle, contactRef: 'signal: private-pointer' },
        { cookie: session.cookie },
      )
      expect(unpaid.status).toBe(402)
      expect(unpaid.json.accepts[0]).toMatchObject({
        maxAmountRequired: '1000000',
        resource: '/api/chat/submit-doc',
      })
      expect(
        await count('SELECT count(*)::int AS n FROM personas WHERE handle = $1', [handle]),
      ).toBe(0)

      const payee = await devnet.usdcBalance(devnet.accounts.payee)
      const paid = await paidSubmit(session.cookie, {
        handle,
        contactRef: 'signal: private-pointer',
      })
      expect(paid.status).toBe(200)
      expect(paid.json).toMatchObject({ review: 'held for review', admitted: false })
      expect(paid.json.orderId).toMatch(/^doc_submit:/)
      expect(await devnet.usdcBalance(devnet.accounts.payee)).toBe(payee + 1_000_000n)

      // The owner is the signed-in wallet, not the paying one; the order and its revenue are recorded.
      const { rows } = await venue.deps.database.client.query(
        `SELECT o.wallet, p.status, p.reason, h.contact_ref_sealed, ord.status AS order_status, r.amount_atomic::text AS revenue
         FROM personas p JOIN owners o ON o.id = p.owner_id
         JOIN heart_files h ON h.owner_id = o.id
         JOIN orders ord ON ord.id = $2 JOIN revenue r ON r.order_id = ord.id
        WHERE p.id = $1`,
        [paid.json.personaId, paid.json.orderId],
      )
      const row = rows[0] as Record<string, string>
      expect(row).toMatchObject({
        wallet: session.wallet,
        status: 'held',
        reason: 'held for review',
        order_status: 'fulfilled',
        revenue: '1000000',
      })
      expect(row.contact_ref_sealed).not.toContain('private-pointer')
      expect(venue.deps.sealer.open(row.contact_ref_sealed!)).toBe('signal: private-pointer')
      expect(
        await count(
          `SELECT count(*)::int AS n FROM events WHERE kind = 'persona_submitted_for_review' AND (detail->>'personaId')::int = $1`,
          [paid.json.personaId],
        ),
      ).toBe(1)

      expect((await me(session.cookie)).review).toEqual({
        personaId: paid.json.personaId,
        handle,
        status: 'held for review',
        reason: null,
      })
      // One persona per wallet in review or on the floor: a second submission is refused unpaid.
      await nothingCharged(async () => {
        const again = await paidSubmit(session.cookie, { handle: uniqueHandle('aoe') })
        expect(again).toMatchObject({
          status: 409,
          json: { personaId: paid.json.personaId, review: 'held for review' },
        })
      })
      // A new payment sent straight away (no 402 first) is refused by the hold before it moves.
      await nothingCharged(async () => {
        const body = JSON.stringify({ handle: uniqueHandle('aoe') })
        const header = await signPayment(unpaid.json.accepts[0])
        const refused = await fetch(`${venue.url}/api/chat/submit-doc`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            cookie: session.cookie,
            'x-payment': header,
          },
          body,
        })
        expect(refused.status).toBe(409)
        expect(await refused.json()).toMatchObject({ personaId: paid.json.personaId })
      })
      // A handle in use is refused before the 402.
      await nothingCharged(async () => {
        const other = await drafted(100n)
        expect(await paidSubmit(other.cookie, { handle: handle.toUpperCase() })).toMatchObject({
          status: 400,
          json: { error: 'handle taken' },
        })
      })
    })

    it('a retry of the same paid request gets the same answer, even with the safety check down since: one persona, one payment', async () => {
      const session = await drafted(100n)
      const body = JSON.stringify({ handle: uniqueHandle('aoe') })
      const unpaid = await post('/api/chat/submit-doc', JSON.parse(body), {
        cookie: session.cookie,
      })
      expect(unpaid.status).toBe(402)
      const header = await signPayment(unpaid.json.accepts[0])
      const payee = await devnet.usdcBalance(devnet.accounts.payee)
      const send = async () => {
        const response = await fetch(`${venue.url}/api/chat/submit-doc`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            cookie: session.cookie,
            'x-payment': header,
          },
          body,
        })
        return { status: response.status, json: await response.json() }
      }
      const first = await send()
      // The retry comes after the safety check went down: a paid doc is answered from the
      // ledger, never refused after the money moved.
      moderationDown = true
      const again = await send().finally(() => {
        moderationDown = false
      })
      expect(first.status).toBe(200)
      expect(again).toEqual(first)
      expect(await devnet.usdcBalance(devnet.accounts.payee)).toBe(payee + 1_000_000n)
    })

    it('a held persona takes part in nothing: the beat neither seats nor matches it', async () => {
      const session = await drafted(100n)
      const paid = await paidSubmit(session.cookie, { handle: uniqueHandle('aoe') })
      expect(paid.status).toBe(200)
      // Admitted personas with the same heart: a match would pair them with it if it took part.
      await admitPersona(venue)
      await admitPersona(venue)
      const beat = await post(
        '/admin/actions/beat',
        {},
        { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      )
      expect(beat.status).toBe(200)
      expect(
        await count(
          'SELECT count(*)::int AS n FROM couples WHERE persona_a = $1 OR persona_b = $1',
          [paid.json.personaId],
        ),
      ).toBe(0)
      expect((await me(session.cookie)).review.status).toBe('held for review')
    })

    it('the operator review: 401/403 without the operator, 400 bad bodies, 404, reject with a reason', async () => {
      expect(
        (await post('/admin/actions/review', { personaId: 1, decision: 'approve' })).status,
      ).toBe(401)
      expect((await review({ personaId: 1, decision: 'approve' }, 'not-the-token')).status).toBe(
        403,
      )
      for (const body of [
        {},
        { personaId: 1 },
        { personaId: 1, decision: 'maybe' },
        { personaId: -1, decision: 'reject' },
      ])
        expect((await review(body)).status, JSON.stringify(body)).toBe(400)
      expect(await review({ personaId: 2_000_000_000, decision: 'approve' })).toMatchObject({
        status: 404,
        json: { error: 'no such persona' },
      })
      // A persona an agent entered was never held for review.
      const agents = (await admitPersona(venue)).answer.json.personaId
      expect(await review({ personaId: agents, decision: 'reject' })).toMatchObject({
        status: 409,
        json: { error: 'this persona is not held for review', currentStatus: 'admitted' },
      })

      const session = await drafted(100n)
      const { personaId } = (await paidSubmit(session.cookie, { handle: uniqueHandle('aoe') })).json
      const rejected = await review({
        personaId,
        decision: 'reject',
        reason: 'the doc reads as an ad',
      })
      expect(rejected).toMatchObject({
        status: 200,
        json: { personaId, decision: 'reject', status: 'rejected', admitted: false },
      })
      expect((await me(session.cookie)).review).toMatchObject({
        status: 'rejected',
        reason: 'rejected on review: the doc reads as an ad',
      })
      expect(
        await count(
          `SELECT count(*)::int AS n FROM events WHERE kind = 'review_rejected' AND (detail->>'personaId')::int = $1 AND detail->>'operator' = 'token'`,
          [personaId],
        ),
      ).toBe(1)
      // Decided once: a second decision is 409.
      expect((await review({ personaId, decision: 'approve' })).status).toBe(409)
      // Rejected, the wallet may submit again (a new paid submission), held for review anew.
      const again = await paidSubmit(session.cookie, { handle: uniqueHandle('aoe') })
      expect(again).toMatchObject({ status: 200, json: { review: 'held for review' } })
      expect(again.json.personaId).not.toBe(personaId)
      expect((await me(session.cookie)).review).toMatchObject({
        personaId: again.json.personaId,
        status: 'held for review',
      })
    })

    it('approval runs the admission gates: admitted with a seat; at the cap approved into pending until one frees', async () => {
      const admin = (key: string, value: unknown) =>
        post(
          '/admin/actions/settings',
          { key, value },
          { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        )
      const first = await drafted(100n)
      const one = (await paidSubmit(first.cookie, { handle: uniqueHandle('aoe') })).json.personaId
      const approved = await review({ personaId: one, decision: 'approve' })
      expect(approved).toMatchObject({
        status: 200,
        json: { personaId: one, status: 'admitted', admitted: true, reason: 'admitted' },
      })
      expect((await me(first.cookie)).review.status).toBe('admitted')
      expect(
        await count(
          `SELECT count(*)::int AS n FROM events WHERE kind = 'review_approved' AND (detail->>'personaId')::int = $1 AND detail->>'operator' = 'token'`,
          [one],
        ),
      ).toBe(1)

      const second = await drafted(100n)
      const two = (await paidSubmit(second.cookie, { handle: uniqueHandle('aoe') })).json.personaId
      const used = await count('SELECT used AS n FROM capacity')
      expect((await admin('cap', used)).status).toBe(200)
      try {
        expect(await review({ personaId: two, decision: 'approve' })).toMatchObject({
          status: 200,
          json: { status: 'pending', admitted: false, reason: 'cap reached' },
        })
        expect((await me(second.cookie)).review.status).toBe('approved, waiting for a seat')
      } finally {
        await admin('cap', 100_000)
      }
      // The match beat seats it once there is room, as any persona pending at the cap.
      await post('/admin/actions/beat', {}, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` })
      expect((await me(second.cookie)).review.status).toBe('admitted')
    })
  },
)
