import { type RunningServer, startRoundRobinProxy } from '@agents/service-kit'
import { createTestDatabase, throughPooler } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestRouter } from '../testing.ts'

// PgBouncer in transaction mode in front of the test server, as hosted
// PostgreSQL puts one (scripts/ci/start-pgbouncer.sh); skipped without it.
const POOLER = process.env.TEST_PGBOUNCER_URL
const SERVER = process.env.TEST_DATABASE_URL

// The counters' library names its statements; behind a transaction pooler
// they would fail and each replica would count in its own memory, allowing
// twice what one allows. With the pool mode set, the limit holds across both.
describe.skipIf(!SERVER || !POOLER)('two routers counting through a transaction pooler', () => {
  const servers: RunningServer[] = []
  let proxy: Awaited<ReturnType<typeof startRoundRobinProxy>>
  let drop: () => Promise<void>
  beforeAll(async () => {
    const database = await createTestDatabase(SERVER!)
    drop = database.drop
    const env = {
      RATE_LIMIT_DATABASE_URL: throughPooler(POOLER!, database.url),
      RATE_LIMIT_DATABASE_POOL_MODE: 'transaction',
      // The client's own entry, then the proxy's (the round-robin proxy appends the peer).
      TRUST_FORWARDED_FOR: '2',
      RATE_LIMIT_READ: '6/60',
    }
    servers.push(await startTestRouter(env), await startTestRouter(env))
    proxy = await startRoundRobinProxy(servers.map((server) => server.url))
  })
  afterAll(async () => {
    await proxy?.close()
    await Promise.all(servers.map((server) => server.close()))
    await drop?.()
  })

  test('allow what one allows, client after client', async () => {
    for (const client of ['203.0.113.71', '203.0.113.72', '203.0.113.73']) {
      const statuses: number[] = []
      for (let index = 0; index < 8; index++) {
        const response = await fetch(`${proxy.url}/api/v1/list_pads`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
          body: '{}',
        })
        statuses.push(response.status)
      }
      expect(statuses, client).toEqual([200, 200, 200, 200, 200, 200, 429, 429])
    }
  })
})
