import { createHash, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { proxiedPostgresUrl, startTcpFaultProxy, type TcpFaultProxy } from '@agents/devnet'
import {
  type ChildServiceTarget,
  type ExactlyOnceTarget,
  exactlyOnceScenarios,
  type FaultDevnet,
  freePort,
  hostPortOf,
  killScenario,
  PAYER_RAILS,
  type PayerRail,
  type Purchase,
  paymentsHealthScenario,
  spawnService,
  startFaultDevnet,
} from '@agents/payments/testing'
import { createTestDatabase, testBackends } from '@agents/service-kit/db'
import { type Address, createWalletClient, erc20Abi, http, type PrivateKeyAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe } from 'vitest'
import { reportOrderId } from './compatibility/compatibility-report.ts'
import { VENUE_CREDENTIAL_HEADER } from './credentials/actor-middleware.ts'
import { couples } from './db/schema.ts'
import { topupRequestKey } from './orders/chat-topup.ts'
import type { Venue } from './start.ts'
import { admitPersona, createAgent, createOwner, HEART } from './test-helpers.ts'
import { signInToChat } from './testing/chat-fixtures.ts'
import { type ChatStandIn, startChatStandIn } from './testing/chat-stand-in.ts'
import { startTestVenue, TEST_DATABASE_URL, testVenueEnv } from './testing.ts'

// Every paid item of the venue (doc_submit from intake and from the chat page,
// compatibility_report with a chat model and composed by the venue, featured_slot, agent_ask,
// chat_topup: x402 and MPP in pull mode) under
// every fault of "Paid requests deliver exactly once", on every rail and backend, and the process
// killed between settlement and delivery. The chat stand-in answers at once: the faults are the
// payment's.
// A unique marker the safety check passes: no digits (long digit runs read as phone numbers)
// and vowels only (random consonants can spell words the profanity list holds).
const letters = () => Array.from(randomBytes(14), (byte) => 'aeiou'[byte % 5]).join('')
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url))

// The studio token's price for the chat page's floor entry rule: $1.00 (the devnet's USDC stands
// in for the token, read straight from the chain, not through the fault proxies).
const prices = createServer((_request, response) => {
  response.setHeader('content-type', 'application/json')
  response.end(JSON.stringify({ usd: '1.00' }))
})
let priceUrl = ''

let faults: FaultDevnet
let chat: ChatStandIn
beforeAll(async () => {
  await new Promise<void>((resolve) => prices.listen(0, '127.0.0.1', resolve))
  priceUrl = `http://127.0.0.1:${(prices.address() as { port: number }).port}/price`
  faults = await startFaultDevnet()
  chat = await startChatStandIn()
  chat.answer({ status: 200, content: 'Talk about what a slow Sunday looks like for each of you.' })
}, 60_000)
afterAll(async () => {
  await chat?.close()
  await faults?.stop()
  await new Promise<void>((resolve) => prices.close(() => resolve()))
})

const received = (rail: PayerRail) => {
  const { devnet } = faults
  return rail === 'mpp'
    ? devnet.tempoBalance!(devnet.accounts.payee)
    : devnet.usdcBalance(devnet.accounts.payee)
}

/** How many times the ledger delivered the payments made for `requestKey` (0 or 1). */
const delivered = async (fixtures: Venue, requestKey: string) => {
  const { rows } = await fixtures.deps.database.client.query(
    `SELECT count(*)::int AS n FROM payment_ledger
      WHERE request_key = $1 AND state = 'settled' AND fulfilment IS NOT NULL`,
    [requestKey],
  )
  return (rows[0] as { n: number }).n
}

/** A doc to file, told apart by its `about` line. */
const docPurchase = async (serviceUrl: string, fixtures: Venue): Promise<Purchase> => {
  const marker = `I restore old sailboats, fault test ${letters()}`
  return {
    url: `${serviceUrl}/api/intake/heart-file`,
    body: JSON.stringify({
      ageAttested: true,
      contactRef: 'signal: private-pointer-42',
      heart: {
        about: marker,
        seeking: 'Someone curious who likes slow Sunday mornings.',
        values: ['honesty'],
        interests: ['sailing'],
      },
    }),
    price: 1_000_000n,
    deliveries: async () => {
      const { rows } = await fixtures.deps.database.client.query(
        `SELECT count(*)::int AS n FROM heart_files WHERE heart->>'about' = $1`,
        [marker],
      )
      return (rows[0] as { n: number }).n
    },
    received,
    identity: (answer) => answer.heartFileId,
  }
}

/** One paid answer of the matchmaker for a fresh agent, told apart by its message. */
const askPurchase = async (serviceUrl: string, fixtures: Venue): Promise<Purchase> => {
  const agent = await createAgent(fixtures)
  const message = `How should I open a first message, fault test ${letters()}?`
  return {
    url: `${serviceUrl}/api/chat/ask`,
    body: JSON.stringify({ message }),
    headers: { [VENUE_CREDENTIAL_HEADER]: agent.credential },
    price: 100_000n,
    deliveries: () =>
      delivered(
        fixtures,
        `ask:agent:${agent.endpointId}:${createHash('sha256').update(message).digest('hex')}`,
      ),
    received,
    identity: (answer) => [answer.orderId, answer.answer],
  }
}

/**
 * A new order to buy: a fresh owner with a persona in a new couple (the
 * order id is per owner, couple and day). Fixtures go through `fixtures`,
 * a venue on the same database as the one selling.
 */
const reportPurchase = async (serviceUrl: string, fixtures: Venue): Promise<Purchase> => {
  const owner = await createOwner(fixtures)
  const mine = await fetch(`${fixtures.url}/api/personas`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.credential}` },
    body: JSON.stringify({
      handle: `report-${owner.ownerId}`,
      model: 'claude',
      persona_age: '18+',
      heart: HEART,
      ownerId: owner.ownerId,
    }),
  }).then((response) => response.json() as Promise<{ personaId: number }>)
  const theirs = (await admitPersona(fixtures)).answer.json.personaId as number
  const [couple] = await fixtures.deps.database.db
    .insert(couples)
    .values({
      cycleId: `faults-${owner.ownerId}`,
      personaA: Math.min(mine.personaId, theirs),
      personaB: Math.max(mine.personaId, theirs),
    })
    .returning({ id: couples.id })
  const orderId = reportOrderId(owner.ownerId, couple!.id)
  return {
    url: `${serviceUrl}/api/premium/compatibility-report`,
    body: JSON.stringify({ ownerId: owner.ownerId, coupleId: couple!.id }),
    // Authorization carries the MPP payment; the credential travels beside it.
    headers: { [VENUE_CREDENTIAL_HEADER]: owner.credential },
    price: 5_000_000n,
    deliveries: () => delivered(fixtures, `report:${orderId}`),
    received,
    identity: (answer) => [answer.orderId, answer.receiptId, answer.report],
  }
}

/** A featured post for a fresh persona, told apart by its text. */
const featuredPurchase = async (serviceUrl: string, fixtures: Venue): Promise<Purchase> => {
  const { agent, answer } = await admitPersona(fixtures)
  const marker = `Featured sailor seeks a curious crew, fault test ${letters()}`
  return {
    url: `${serviceUrl}/api/featured/post`,
    body: JSON.stringify({ personaId: answer.json.personaId, board: 'seeking', body: marker }),
    headers: { [VENUE_CREDENTIAL_HEADER]: agent.credential },
    price: 50_000_000n,
    servedStatus: 201,
    deliveries: async () => {
      const { rows } = await fixtures.deps.database.client.query(
        'SELECT count(*)::int AS n FROM posts WHERE body = $1 AND featured_until IS NOT NULL',
        [marker],
      )
      return (rows[0] as { n: number }).n
    },
    received,
    identity: (answer) => [answer.orderId, answer.postId],
  }
}

/**
 * A chat top-up by the paying wallet, signed in afresh (the payment may pay
 * for this session's top-up only: another purchase is another session).
 */
const topupPurchase = async (
  serviceUrl: string,
  fixtures: Venue,
  payer: PrivateKeyAccount,
): Promise<Purchase> => {
  const { cookie, wallet } = await signInToChat(serviceUrl, { account: payer })
  const requestKey = topupRequestKey(wallet, cookie.slice(cookie.indexOf('=') + 1))
  return {
    url: `${serviceUrl}/api/chat/topup`,
    body: '{}',
    headers: { cookie },
    price: 2_000_000n,
    deliveries: () => delivered(fixtures, requestKey),
    received,
    identity: (answer) => [answer.orderId, answer.credited],
  }
}

/** A fresh wallet holding $60 of the studio token: above the human floor's $50. */
const studioHolder = async () => {
  const { devnet } = faults
  const account = privateKeyToAccount(generatePrivateKey())
  const hash = await createWalletClient({
    account: devnet.accounts.payer,
    transport: http(devnet.base.rpcUrl),
  }).writeContract({
    address: devnet.base.usdc,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [account.address as Address, 60_000_000n],
    chain: null,
  })
  await devnet.base.publicClient.waitForTransactionReceipt({ hash })
  return account
}

/** A human's doc from the chat page: a fresh holder signs in and drafts; the payer pays. */
const chatDocPurchase = async (serviceUrl: string, fixtures: Venue): Promise<Purchase> => {
  const { cookie } = await signInToChat(serviceUrl, { account: await studioHolder() })
  for (const answer of [
    'I restore old sailboats and read too much history.',
    'Someone curious who likes slow Sunday mornings.',
    'long-term',
    'honesty, kindness',
    'sailing, history',
  ])
    await fetch(`${serviceUrl}/api/chat/draft`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ answer }),
    })
  const handle = `sailor-${letters()}`
  return {
    url: `${serviceUrl}/api/chat/submit-doc`,
    body: JSON.stringify({ handle, contactRef: 'signal: private-pointer' }),
    headers: { cookie },
    price: 1_000_000n,
    deliveries: async () => {
      const { rows } = await fixtures.deps.database.client.query(
        `SELECT count(*)::int AS n FROM personas WHERE handle = $1 AND status = 'held'`,
        [handle],
      )
      return (rows[0] as { n: number }).n
    },
    received,
    identity: (answer) => [answer.personaId, answer.orderId],
  }
}

/** A venue without a chat model composes the report while the payment settles and delivers it at once. */
const NO_CHAT_MODEL = { chatModel: false }

const ITEMS = [
  ['doc_submit', docPurchase, {}],
  ['doc_submit (chat page)', chatDocPurchase, {}],
  ['compatibility_report', reportPurchase, {}],
  ['compatibility_report (composed by the venue)', reportPurchase, NO_CHAT_MODEL],
  ['featured_slot', featuredPurchase, {}],
  ['agent_ask', askPurchase, {}],
  ['chat_topup', topupPurchase, {}],
] as const

/** What the paid items need: boards open, room for every featured purchase, a chat model (unless not). */
const itemEnv = ({ chatModel = true }: { chatModel?: boolean } = {}) => ({
  VENUE_OPEN: 'true',
  VENUE_FEATURED_SLOTS: '100',
  ...(chatModel ? { MATCHMAKER_CHAT_URL: chat.url } : {}),
  VENUE_STUDIO_TOKEN: faults.devnet.base.usdc,
  VENUE_STUDIO_RPC_URL: faults.devnet.base.rpcUrl,
  VENUE_STUDIO_PRICE_URL: priceUrl,
})

describe.each(
  testBackends(TEST_DATABASE_URL).flatMap((backend) =>
    ITEMS.map(([item, purchase, options]) => ({ ...backend, item, purchase, options })),
  ),
)('$item exactly once on $name', ({ item, purchase, options, ...backend }) => {
  let venue: Venue
  let database: TcpFaultProxy | undefined
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const opened = await backend.open()
    drop = opened.drop
    if (opened.url) database = await startTcpFaultProxy(hostPortOf(opened.url))
    venue = await startTestVenue({
      devnet: faults.devnet,
      databaseUrl: opened.url && database ? proxiedPostgresUrl(opened.url, database) : undefined,
      env: { ...faults.env(), ...itemEnv(options), PAYMENTS_RECONCILE_INTERVAL_MS: '3600000' },
    })
  }, 60_000)
  afterAll(async () => {
    await venue?.close()
    await database?.close()
    await drop()
  })

  const target = (): ExactlyOnceTarget => ({
    devnet: faults.devnet,
    payer: faults.devnet.accounts.payer,
    reconcileNow: () => venue.reconcileNow(),
    healthUrl: () => `${venue.url}/health`,
    faults: { baseRpc: faults.baseRpc, tempoRpc: faults.tempoRpc, database },
    buy: () => purchase(venue.url, venue, faults.devnet.accounts.payer),
  })

  // The payments block of /health, once per backend.
  if (item === 'doc_submit') paymentsHealthScenario(target)
  for (const rail of PAYER_RAILS)
    describe(rail, () =>
      exactlyOnceScenarios(rail, target, { databaseFaults: backend.name === 'PostgreSQL' }),
    )
})

describe.runIf(TEST_DATABASE_URL).each(ITEMS)(
  '%s when the venue process is killed',
  (_, purchase, options) => {
    let drop: () => Promise<void> = async () => {}
    let env: Record<string, string>
    let observer: Venue
    beforeAll(async () => {
      const opened = await createTestDatabase(TEST_DATABASE_URL!)
      drop = opened.drop
      env = await testVenueEnv({
        devnet: faults.devnet,
        env: {
          ...faults.env(),
          ...itemEnv(options),
          DATABASE_URL: opened.url,
          PORT: String(await freePort()),
          HOST: '127.0.0.1',
          PAYMENTS_RECONCILE_INTERVAL_MS: '200',
        },
      })
      observer = await startTestVenue({
        devnet: faults.devnet,
        databaseUrl: opened.url,
        env: { ...itemEnv(options), PAYMENTS_RECONCILE_INTERVAL_MS: '3600000' },
      })
    }, 60_000)
    afterAll(async () => {
      await observer?.close()
      await drop()
    })

    const target = (): ChildServiceTarget => ({
      devnet: faults.devnet,
      payer: faults.devnet.accounts.payer2,
      faults: { baseRpc: faults.baseRpc, tempoRpc: faults.tempoRpc },
      start: () => spawnService(MAIN, env),
      buy: (serviceUrl) => purchase(serviceUrl, observer, faults.devnet.accounts.payer2),
    })

    for (const rail of PAYER_RAILS) killScenario(rail, target)
  },
)
