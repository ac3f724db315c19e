import { type Devnet, type StudioToken, startStudioToken } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { payFor } from '@agents/payments/testing'
import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VENUE_CREDENTIAL_HEADER } from './credentials/actor-middleware.ts'
import { couples } from './db/schema.ts'
import type { Venue } from './start.ts'
import { admitPersona, createAgent, createOwner, HEART, uniqueHandle } from './test-helpers.ts'
import { signInToChat } from './testing/chat-fixtures.ts'
import { type ChatStandIn, startChatStandIn } from './testing/chat-stand-in.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from './testing.ts'

// Every paid item, paid once and delivered, then sent again with a second, new payment: the
// answer the README gives, the money moved as it says (nothing for an item whose hold refuses
// the new payment, the price once more for an item sold once per payment), and the venue still
// answering. On PGlite a hold or fulfilment that reads outside its claim's transaction hung the
// whole process here; the database's transaction guard (on in tests) now throws instead.

type Request = { url: string; body: string; headers: Record<string, string> }

/** A POST that cannot hang the test: a venue that stopped answering fails it. */
const post = async (request: Request, payment: Record<string, string>) => {
  const response = await fetch(request.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...request.headers, ...payment },
    body: request.body,
    signal: AbortSignal.timeout(15_000),
  })
  // biome-ignore lint/suspicious/noExplicitAny: tests read the answer by path
  return { status: response.status, json: (await response.json()) as any }
}

let devnet: Devnet
let chat: ChatStandIn
let studio: StudioToken
// Holds $100 of the studio token: above the human floor's $50 (one per database is enough).
const holder = privateKeyToAccount(generatePrivateKey())
beforeAll(async () => {
  devnet = await sharedDevnet({ tempo: false })
  chat = await startChatStandIn()
  chat.answer({ status: 200, content: 'Talk about what a slow Sunday looks like for each of you.' })
  studio = await startStudioToken({
    rpcUrl: devnet.base.rpcUrl,
    usd: '1.00',
    mints: [{ to: holder.address, tokens: '100' }],
  })
}, 60_000)
afterAll(async () => {
  await studio?.stop()
  await chat?.close()
  await devnet?.stop()
})

/** A new report order: a fresh owner with a persona in a new couple. */
const reportRequest = async (venue: Venue): Promise<Request> => {
  const owner = await createOwner(venue)
  const mine = await post(
    {
      url: `${venue.url}/api/personas`,
      body: JSON.stringify({
        handle: uniqueHandle('again'),
        model: 'claude',
        persona_age: '18+',
        heart: HEART,
        ownerId: owner.ownerId,
      }),
      headers: { authorization: `Bearer ${owner.credential}` },
    },
    {},
  )
  const theirs = (await admitPersona(venue)).answer.json.personaId as number
  const [couple] = await venue.deps.database.db
    .insert(couples)
    .values({
      cycleId: `again-${owner.ownerId}`,
      personaA: Math.min(mine.json.personaId, theirs),
      personaB: Math.max(mine.json.personaId, theirs),
    })
    .returning({ id: couples.id })
  return {
    url: `${venue.url}/api/premium/compatibility-report`,
    body: JSON.stringify({ ownerId: owner.ownerId, coupleId: couple!.id }),
    headers: { [VENUE_CREDENTIAL_HEADER]: owner.credential },
  }
}

/** The holder's drafted doc, submitted from the chat page (the devnet payer pays). */
const chatDocRequest = async (venue: Venue): Promise<Request> => {
  const { cookie } = await signInToChat(venue.url, { account: holder })
  for (const answer of [
    'I restore old sailboats and read too much history.',
    'Someone curious who likes slow Sunday mornings.',
    'long-term',
    'honesty, kindness',
    'sailing, history',
  ])
    await post(
      { url: `${venue.url}/api/chat/draft`, body: JSON.stringify({ answer }), headers: { cookie } },
      {},
    )
  return {
    url: `${venue.url}/api/chat/submit-doc`,
    body: JSON.stringify({ handle: uniqueHandle('sailor'), contactRef: 'signal: private-pointer' }),
    headers: { cookie },
  }
}

type Item = {
  name: string
  price: bigint
  request: (venue: Venue) => Promise<Request>
  served: number
  /** The second payment's answer, given the first's; `moved`: whether it is sold again. */
  again: (first: Record<string, unknown>) => { status: number; json: unknown; moved: boolean }
}

const ITEMS: Item[] = [
  {
    name: 'doc_submit (a new doc for each payment)',
    price: 1_000_000n,
    request: async (venue) => ({
      url: `${venue.url}/api/intake/heart-file`,
      body: JSON.stringify({ ageAttested: true, contactRef: 'signal: private-1', heart: HEART }),
      headers: {},
    }),
    served: 200,
    again: (first) => ({
      status: 200,
      json: expect.objectContaining({ ownerId: first.ownerId, heartFileId: expect.any(Number) }),
      moved: true,
    }),
  },
  {
    name: 'doc_submit from the chat page (the wallet has a persona in review: refused)',
    price: 1_000_000n,
    request: chatDocRequest,
    served: 200,
    again: (first) => ({
      status: 409,
      json: expect.objectContaining({ personaId: first.personaId, review: 'held for review' }),
      moved: false,
    }),
  },
  {
    name: 'compatibility_report (paid today: the same answer)',
    price: 5_000_000n,
    request: reportRequest,
    served: 200,
    again: (first) => ({ status: 200, json: first, moved: false }),
  },
  {
    name: 'featured_slot (a new post for each payment)',
    price: 50_000_000n,
    request: async (venue) => {
      const { agent, answer } = await admitPersona(venue)
      return {
        url: `${venue.url}/api/featured/post`,
        body: JSON.stringify({
          personaId: answer.json.personaId,
          board: 'seeking',
          body: 'Featured sailor seeks a curious crew for slow Sunday mornings.',
        }),
        headers: { [VENUE_CREDENTIAL_HEADER]: agent.credential },
      }
    },
    served: 201,
    again: () => ({ status: 201, json: expect.objectContaining({ ok: true }), moved: true }),
  },
  {
    name: 'agent_ask (an answer for each payment)',
    price: 100_000n,
    request: async (venue) => ({
      url: `${venue.url}/api/chat/ask`,
      body: JSON.stringify({ message: 'How should I open a first message?' }),
      headers: { [VENUE_CREDENTIAL_HEADER]: (await createAgent(venue)).credential },
    }),
    served: 200,
    again: () => ({
      status: 200,
      json: expect.objectContaining({ ok: true, answer: expect.any(String) }),
      moved: true,
    }),
  },
  {
    name: 'chat_topup (credits for each payment)',
    price: 2_000_000n,
    request: async (venue) => ({
      url: `${venue.url}/api/chat/topup`,
      body: '{}',
      headers: {
        cookie: (await signInToChat(venue.url, { account: devnet.accounts.payer })).cookie,
      },
    }),
    served: 200,
    again: (first) => ({
      status: 200,
      json: expect.objectContaining({ credited: 50, credits: (first.credits as number) + 50 }),
      moved: true,
    }),
  },
]

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'a second, new payment after delivery on $name',
  ({ open }) => {
    let venue: Venue
    let drop: () => Promise<void> = async () => {}
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      venue = await startTestVenue({
        devnet,
        databaseUrl: database.url,
        env: { VENUE_FEATURED_SLOTS: '100', MATCHMAKER_CHAT_URL: chat.url, ...studio.env() },
      })
    }, 60_000)
    afterAll(async () => {
      await venue?.close()
      await drop()
    })

    const payee = () => devnet.usdcBalance(devnet.accounts.payee)
    const payer = () => devnet.usdcBalance(devnet.accounts.payer.address)

    it.each(ITEMS)('$name', async ({ price, request, served, again }) => {
      const wanted = await request(venue)
      // Both signed from a 402 before the first is delivered: after it, some items answer without one.
      const first = await payFor(devnet, 'x402-v2', wanted, devnet.accounts.payer)
      const second = await payFor(devnet, 'x402-v2', wanted, devnet.accounts.payer)
      const delivered = await post(wanted, first)
      expect(delivered.status, JSON.stringify(delivered.json)).toBe(served)
      const before = { payee: await payee(), payer: await payer() }

      const answer = await post(wanted, second)
      const expected = again(delivered.json)
      expect(answer.status, JSON.stringify(answer.json)).toBe(expected.status)
      expect(answer.json).toEqual(expected.json)
      if (expected.moved) expect(answer.json).not.toEqual(delivered.json)
      const moved = expected.moved ? price : 0n
      expect(await payee()).toBe(before.payee + moved)
      expect(await payer()).toBe(before.payer - moved)
      const health = await fetch(`${venue.url}/health`, { signal: AbortSignal.timeout(5_000) })
      expect(health.status).toBe(200)
    })
  },
)
