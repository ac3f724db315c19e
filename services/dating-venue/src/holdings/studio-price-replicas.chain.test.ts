import { createServer } from 'node:http'
import { type Devnet, type StudioToken, startStudioToken } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { createTestDatabase } from '@agents/service-kit/db'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

// Two venue replicas on one PostgreSQL share the studio token's stored price: the source is read
// once an hour for both, both value a holding alike, and a rise is capped against the stored price
// whichever replica reads the source.

const MINUTES_30 = 30 * 60_000

describe.runIf(TEST_DATABASE_URL)('the studio price shared by two replicas', () => {
  let devnet: Devnet
  let studio: StudioToken
  let replicas: Venue[] = []
  let drop: () => Promise<void> = async () => {}
  let usd = '0.10'
  let reads = 0
  const source = createServer((_request, response) => {
    reads++
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify({ studio: { usd } }))
  })
  const holder = privateKeyToAccount(generatePrivateKey())
  let cookie = ''

  beforeAll(async () => {
    await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve))
    const priceUrl = `http://127.0.0.1:${(source.address() as { port: number }).port}/price`
    devnet = await sharedDevnet({ tempo: false })
    studio = await startStudioToken({
      rpcUrl: devnet.base.rpcUrl,
      mints: [{ to: holder.address, tokens: '1000' }],
    })
    const database = await createTestDatabase(TEST_DATABASE_URL!, VENUE_TEST_DATABASE)
    drop = database.drop
    const env = { ...studio.env(), VENUE_STUDIO_PRICE_URL: priceUrl }
    replicas = [
      await startTestVenue({ devnet, databaseUrl: database.url, env }),
      await startTestVenue({ devnet, databaseUrl: database.url, env }),
    ]
    // Chat sessions are rows: one sign-in serves both replicas.
    cookie = (await signInToChat(replicas[0]!.url, { account: holder })).cookie
  }, 60_000)
  afterAll(async () => {
    for (const replica of replicas) await replica.close()
    await drop()
    await studio?.stop()
    await devnet?.stop()
    await new Promise<void>((resolve) => source.close(() => resolve()))
  })

  /** The holding the replica values (1,000 tokens at its price), from the chat page's account. */
  const holdingOn = async (replica: Venue) => {
    const me = await fetch(`${replica.url}/api/chat/me`, { headers: { cookie } })
    expect(me.status).toBe(200)
    return ((await me.json()) as { holdingUsd: string }).holdingUsd
  }
  /** Time passes for the stored price (its read, its move and its answer are older). */
  const rewind = (ms: number) =>
    replicas[0]!.deps.database.client.query(
      `UPDATE studio_price SET attempted_at = attempted_at - $1,
        updated_at = updated_at - $1, observed_at = observed_at - $1`,
      [ms],
    )

  it('reads the source once for both, values alike, and caps a rise against the stored price', async () => {
    const [a, b] = replicas as [Venue, Venue]
    // Asked at once, the replicas race: one reads the source.
    await Promise.all([holdingOn(a), holdingOn(b)])
    expect(reads).toBe(1)
    expect([await holdingOn(a), await holdingOn(b)]).toEqual(['100.00', '100.00'])
    expect(reads).toBe(1)

    // A pump to $0.275; half an hour later neither replica reads again.
    usd = '0.275'
    await rewind(MINUTES_30)
    expect([await holdingOn(b), await holdingOn(a)]).toEqual(['100.00', '100.00'])
    expect(reads).toBe(1)

    // An hour after the first read, the other replica reads: +10 % of the stored $0.10, for both.
    await rewind(MINUTES_30)
    expect([await holdingOn(b), await holdingOn(a)]).toEqual(['110.00', '110.00'])
    expect(reads).toBe(2)
  })
})
