import {
  type FakeEmbeddings,
  sampleHeartFile,
  startFakeEmbeddings,
} from '@agents/dating-venue/testing'
import { type PayerRail, payFor, send, sumBalances } from '@agents/payments/testing'
import pg from 'pg'
import type { Address, PrivateKeyAccount } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Rehearsal, type Replica, startRehearsal } from './start-rehearsal.ts'

// The production rehearsal (packages/rehearsal/README.md): every service
// from a production install, NODE_ENV=production, on PostgreSQL, replicas
// behind a proxy, the facilitator over HTTPS; a paid loop per paying service
// on each rail; a rolling restart under load with no failed request.

const SERVER_URL = process.env.TEST_DATABASE_URL
// The services run their TypeScript with Node's own type stripping (Node 22.18 and later).
const TYPE_STRIPPING = Boolean((process.features as { typescript?: unknown }).typescript)

/** A round of the rolling restart's client: four free reads and one paid request. */
const ROUND_MS = 3000

let rehearsal: Rehearsal
let embeddings: FakeEmbeddings
/** The one split every match here pays on x402 (one seller, one fee): found from a first offer. */
let split: Address
const timings: Record<string, number> = {}

const query = async <row>(url: string, sql: string, values: unknown[] = []) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql, values)).rows as row[]
  } finally {
    await client.end()
  }
}

/** Payments the ledger delivered (settled with a fulfilment), and their sum. */
const ledger = async (databaseUrl: string) => {
  const [row] = await query<{ n: number; total: string }>(
    databaseUrl,
    `SELECT count(*)::int AS n, coalesce(sum(amount), 0)::text AS total FROM payment_ledger
      WHERE state = 'settled' AND fulfilment IS NOT NULL`,
  )
  return { count: row!.n, total: BigInt(row!.total) }
}

const postJson = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (response) => ({ status: response.status, json: await response.json() }))

let models = 0

const postOffer = async (model: string) => {
  const offer = await postJson(`${rehearsal.railProxy.url}/v1/offers`, {
    endpoint: 'https://seller.rehearsal.example/v1',
    payTo: rehearsal.devnet.accounts.payee2,
    model,
    mtok: 1,
    priceUsd: '0.25',
  })
  if (offer.status !== 201) throw new Error(`offer: ${offer.status} ${JSON.stringify(offer.json)}`)
  return offer
}

/** A new match to pay (offer and intent through the proxy), its pay request sent to `payAt`. */
const newMatch = async (payAt: string) => {
  const model = `rehearsal-model-${++models}`
  await postOffer(model)
  const intent = await postJson(`${rehearsal.railProxy.url}/v1/intents`, {
    model,
    mtok: 1,
    maxPriceUsd: '0.25',
  })
  if (intent.status !== 201)
    throw new Error(`intent: ${intent.status} ${JSON.stringify(intent.json)}`)
  const match = intent.json.match as { id: string; gross: string; splitAddress: Address }
  if (match.splitAddress !== split) throw new Error(`another split: ${match.splitAddress}`)
  return {
    purchase: { url: `${payAt}/v1/matches/${match.id}/pay`, body: '{}' },
    price: BigInt(match.gross),
  }
}

/** Buys one match on the rail through its proxy on `rail`: what was paid. */
const buyMatch = async (rail: PayerRail, payer: PrivateKeyAccount) => {
  const { purchase, price } = await newMatch(rehearsal.railProxy.url)
  const answer = await send(purchase, await payFor(rehearsal.devnet, rail, purchase, payer))
  return { answer, price }
}

/** A dating doc to file at `at` (doc_submit, 1 USDC). */
const docPurchase = (at: string) => ({
  purchase: { url: `${at}/api/intake/heart-file`, body: JSON.stringify(sampleHeartFile) },
  price: 1_000_000n,
})

/** Files one dating doc through the venue's proxy, paid on `rail`. */
const buyDoc = async (rail: PayerRail, payer: PrivateKeyAccount) => {
  const { purchase, price } = docPurchase(rehearsal.venueProxy.url)
  const answer = await send(purchase, await payFor(rehearsal.devnet, rail, purchase, payer))
  return { answer, price }
}

/** Everything the payees hold: USDC on Base (the rail's split included) and Tempo's currency. */
const holdings = async () => {
  const { devnet } = rehearsal
  const payees = [devnet.accounts.payee, devnet.accounts.payee2]
  return (
    (await sumBalances(devnet.usdcBalance, [...payees, split])) +
    (await sumBalances(devnet.tempoBalance!, payees))
  )
}

describe.runIf(SERVER_URL && TYPE_STRIPPING)('the production rehearsal', () => {
  beforeAll(async () => {
    const started = performance.now()
    embeddings = await startFakeEmbeddings()
    rehearsal = await startRehearsal(SERVER_URL!, { embeddingsUrl: embeddings.url })
    timings.installMs = rehearsal.install.ms
    timings.setupMs = Math.round(performance.now() - started)
    for (const replica of [rehearsal.router, ...rehearsal.rails, ...rehearsal.venues])
      timings[`${replica.name}StartMs`] = replica.current.startMs
    split = (await postOffer('rehearsal-model-0')).json.offer.splitAddress
    // Anvil mines only when sent a transaction, and x402 authorizations are
    // valid from a minute before signing: after a long setup its latest block
    // is older than that and a payment's simulation fails. A real chain's
    // blocks come every few seconds; one block now stands for them.
    await fetch(rehearsal.devnet.base.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
    })
  }, 600_000)
  afterAll(async () => {
    console.info('rehearsal timings (ms)', timings)
    await rehearsal?.stop()
    await embeddings?.close()
  })

  it('every replica is up in production mode on PostgreSQL, /metrics behind its token', async () => {
    for (const replica of [rehearsal.router, ...rehearsal.rails, ...rehearsal.venues]) {
      const health = await fetch(`${replica.current.url}/health`)
      expect(health.status, replica.name).toBe(200)
      const metrics = await fetch(`${replica.current.url}/metrics`, {
        headers: { authorization: `Bearer ${rehearsal.secrets.metricsToken}` },
      })
      expect(metrics.status, replica.name).toBe(200)
      expect(await metrics.text(), replica.name).toContain('http_requests_total')
      const refused = await fetch(`${replica.current.url}/metrics`, {
        headers: { authorization: 'Bearer not-the-metrics-token' },
      })
      expect(refused.status, replica.name).not.toBe(200)
    }
    // The x402 offer names the public origin, never the replica's own address.
    const bare = await fetch(`${rehearsal.venueProxy.url}/api/intake/heart-file`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sampleHeartFile),
    })
    expect(bare.status).toBe(402)
    expect(JSON.stringify(await bare.json())).not.toContain('127.0.0.1')
  })

  it.each(['x402-v2', 'mpp'] as const)(
    'pays a match on the rail and files a doc at the venue on %s, money exact',
    async (rail) => {
      const { devnet, databases } = rehearsal
      const payer = devnet.accounts.payer
      const ledgers = [await ledger(databases.rail), await ledger(databases.venue)]
      const before = await holdings()
      const match = await buyMatch(rail, payer)
      expect(match.answer.status, JSON.stringify(match.answer.json)).toBe(200)
      expect(match.answer.json).toMatchObject({ status: 'paid' })
      const doc = await buyDoc(rail, payer)
      expect(doc.answer.status, JSON.stringify(doc.answer.json)).toBe(200)
      expect(doc.answer.json).toMatchObject({ tier: 'agent_represented' })
      expect(await holdings()).toBe(before + match.price + doc.price)
      expect(await ledger(databases.rail)).toEqual({
        count: ledgers[0]!.count + 1,
        total: ledgers[0]!.total + match.price,
      })
      expect(await ledger(databases.venue)).toEqual({
        count: ledgers[1]!.count + 1,
        total: ledgers[1]!.total + doc.price,
      })
    },
  )

  it('a rolling restart under load: every replica SIGTERMed and started again, no request fails, money exact', async () => {
    const { devnet, databases, railProxy, venueProxy, router } = rehearsal
    const payer = devnet.accounts.payer2
    const ledgers = [await ledger(databases.rail), await ledger(databases.venue)]
    const before = await holdings()
    let served = 0n
    const failures: string[] = []
    const counts = { free: 0, paid: 0 }
    let running = true

    const client = (async () => {
      const rails: PayerRail[] = ['x402-v2', 'mpp']
      for (let round = 0; running; round++) {
        const roundStarted = performance.now()
        for (const url of [
          `${railProxy.url}/health`,
          `${venueProxy.url}/health`,
          `${railProxy.url}/v1/offers?model=rehearsal-model-0`,
          `${router.current.url}/health`,
        ]) {
          const answer = await fetch(url).catch((error: Error) => ({ status: error.message }))
          counts.free += 1
          if (answer.status !== 200) failures.push(`GET ${url}: ${answer.status}`)
        }
        const rail = rails[round % 2]!
        try {
          const bought = round % 4 < 2 ? await buyMatch(rail, payer) : await buyDoc(rail, payer)
          counts.paid += 1
          if (bought.answer.status !== 200)
            failures.push(
              `paid on ${rail}: ${bought.answer.status} ${JSON.stringify(bought.answer.json)}`,
            )
          else served += bought.price
        } catch (error) {
          failures.push(`paid on ${rail}: ${(error as Error).message}`)
        }
        // One client at its own pace: within the production request limits
        // (the venue's `challenge` is 30 a minute, a paid request takes two).
        const rest = ROUND_MS - (performance.now() - roundStarted)
        if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest))
      }
    })()

    const restarts: Array<{
      name: string
      exitCode: number | null
      stoppedMs: number
      startMs: number
    }> = []
    const restartInTurn = async (replicas: Replica[]) => {
      for (const replica of replicas) {
        await new Promise((resolve) => setTimeout(resolve, 2000))
        restarts.push({ name: replica.name, ...(await replica.restart()) })
      }
    }
    const started = performance.now()
    await restartInTurn([...rehearsal.rails, ...rehearsal.venues])
    await new Promise((resolve) => setTimeout(resolve, 1000))
    running = false
    await client
    timings.rollingRestartMs = Math.round(performance.now() - started)
    console.info('rolling restart', {
      restarts,
      counts,
      retried: [railProxy.retries(), venueProxy.retries()],
    })

    expect(failures).toEqual([])
    expect(restarts.map((restart) => restart.exitCode)).toEqual([0, 0, 0, 0])
    expect(counts.paid).toBeGreaterThanOrEqual(4)
    expect(railProxy.failures() + venueProxy.failures()).toBe(0)
    // Money exact: the payees hold what the served requests cost, the ledgers one delivery each.
    expect(await holdings()).toBe(before + served)
    const [railLedger, venueLedger] = [await ledger(databases.rail), await ledger(databases.venue)]
    expect(railLedger.total - ledgers[0]!.total + venueLedger.total - ledgers[1]!.total).toBe(
      served,
    )
    expect(railLedger.count - ledgers[0]!.count + venueLedger.count - ledgers[1]!.count).toBe(
      counts.paid,
    )
  }, 600_000)

  it.each(['rails', 'venues'] as const)(
    'a replica of the %s sent SIGTERM while its facilitator call is under way answers the payment, then exits 0',
    async (service) => {
      const { devnet, facilitator } = rehearsal
      const replica = rehearsal[service][0]!
      const before = await holdings()
      const { purchase, price } =
        service === 'rails' ? await newMatch(replica.current.url) : docPurchase(replica.current.url)
      const headers = await payFor(devnet, 'x402-v2', purchase, devnet.accounts.payer)
      // The facilitator answers each call a second late, so that the payment
      // is surely still being settled when the replica is told to stop.
      devnet.facilitator.setBehavior({ delayMs: 1000 })
      try {
        const seen = facilitator.calls().length
        const answer = send(purchase, headers).then((sent) => ({ ...sent, at: performance.now() }))
        // SIGTERM once the facilitator has answered a first call for this payment.
        const deadline = Date.now() + 30_000
        while (facilitator.calls().length === seen && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 5))
        const stoppedAt = performance.now()
        const restarted = replica.restart()
        const paid = await answer
        expect(paid.status, JSON.stringify(paid.json)).toBe(200)
        expect(paid.at).toBeGreaterThan(stoppedAt)
        expect((await restarted).exitCode).toBe(0)
      } finally {
        devnet.facilitator.setBehavior('normal')
      }
      expect(await holdings()).toBe(before + price)
    },
    120_000,
  )
})
