// Chat answers per second through the venue (the session cookie, the quota
// and credits, the safety check on the message and the answer, sealing and
// storage) with the chat stand-in answering at once, beside the stand-in
// called directly with the same concurrency in the same run. Target: the
// venue at least 0.5x the direct rate. With PostgreSQL (TEST_DATABASE_URL)
// the venue runs in its own process, as deployed (this process holds the
// client and the stand-in); without it, PGlite in this process.

import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { benchConfig } from '@agents/bench-config'
import { grantCredits, signInToChat, startChatStandIn } from '@agents/dating-venue/bench'
import { startTestVenue, testVenueEnv } from '@agents/dating-venue/testing'
import { freePort, spawnService } from '@agents/payments/testing'
import { createTestDatabase } from '@agents/service-kit/db'
import pg from 'pg'

// Answers per second is a capacity: measured at several concurrencies, since
// the venue's path (three processes, five hops an answer) needs more requests
// in flight than the stand-in alone to keep its CPUs busy.
const levels = benchConfig.venue.chat.levels
const most = Math.max(...levels)
const windowMs = benchConfig.venue.chat.windowMs
const serverUrl = benchConfig.venue.chat.serverUrl

const chat = await startChatStandIn()
chat.answer({ status: 200, content: 'Lead with what a slow Sunday looks like for you.' })
const temporary = serverUrl ? await createTestDatabase(serverUrl) : undefined
const env = { MATCHMAKER_CHAT_URL: chat.url, LOG_LEVEL: 'silent' }
const inProcess = await startTestVenue({ databaseUrl: temporary?.url, env })
// The child serves the requests; the in-process venue (same database) only grants credits.
const child = temporary
  ? await spawnService(
      fileURLToPath(import.meta.resolve('@agents/dating-venue/main')),
      await testVenueEnv({
        databaseUrl: temporary.url,
        env: { ...env, PORT: String(await freePort()), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      }),
    )
  : undefined
const venue = { url: child?.url ?? inProcess.url, deps: inProcess.deps }
// With PostgreSQL, the floor of this layout: a bare proxy in its own process (bare-proxy.ts).
const bare = temporary
  ? await spawnService(fileURLToPath(new URL('./bare-proxy.ts', import.meta.url)), {
      MATCHMAKER_CHAT_URL: chat.url,
      PORT: String(await freePort()),
    })
  : undefined

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${venue.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

/** A signed-in, attested wallet with credits for the whole run. */
const human = async () => {
  const { cookie, wallet } = await signInToChat(venue.url)
  await grantCredits(venue.deps.database.db, wallet, 10_000_000, 'bench')
  return cookie
}

/** CPU seconds (user + system) a process used so far, from /proc (Linux); 0 elsewhere. */
const cpuSeconds = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

// PostgreSQL's share: the backends serving the bench's database and the WAL writer.
const monitor = temporary ? new pg.Client({ connectionString: serverUrl }) : undefined
await monitor?.connect()
const postgresCpu = async () => {
  const cpu = new Map<number, number>()
  if (!monitor || !temporary) return cpu
  const { rows } = await monitor.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = $1 OR backend_type = 'walwriter'`,
    [new URL(temporary.url).pathname.slice(1)],
  )
  for (const { pid } of rows) cpu.set(pid, cpuSeconds(pid))
  return cpu
}
/** Transactions committed in the bench's database so far (each statement outside a transaction is one). */
const commits = async () => {
  if (!monitor || !temporary) return 0
  const { rows } = await monitor.query<{ commits: string }>(
    'SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = $1',
    [new URL(temporary.url).pathname.slice(1)],
  )
  return Number(rows[0]?.commits ?? 0)
}
/** CPU the backends used between two readings; a backend that started in between counts whole. */
const postgresSpent = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, seconds]) => sum + seconds - (before.get(pid) ?? 0), 0)

type Window = {
  rate: number
  done: number
  cpu: { bench: number; venue: number; postgres: number }
  statements: number
}

/** `concurrency` workers calling `once` for `windowMs`: answers a second, and the CPU each process spent. */
const measure = async (
  concurrency: number,
  once: (worker: number) => Promise<void>,
): Promise<Window> => {
  chat.asked.length = 0
  let done = 0
  const venuePid = (once === throughBare ? bare : child)?.child.pid
  const before = {
    bench: process.cpuUsage(),
    venue: venuePid ? cpuSeconds(venuePid) : 0,
    postgres: await postgresCpu(),
    commits: await commits(),
  }
  const until = performance.now() + windowMs
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < until) {
        await once(worker)
        done++
      }
    }),
  )
  const rate = done / ((performance.now() - started) / 1000)
  const bench = process.cpuUsage(before.bench)
  return {
    rate,
    done,
    cpu: {
      bench: (bench.user + bench.system) / 1e6,
      venue: venuePid ? cpuSeconds(venuePid) - before.venue : 0,
      postgres: postgresSpent(before.postgres, await postgresCpu()),
    },
    // The statistics collector reports a backend's counts at most every second or so.
    statements: await new Promise<number>((done) =>
      setTimeout(async () => done((await commits()) - before.commits), 1_500),
    ),
  }
}

/** CPU milliseconds an answer: the bench's process (client and stand-in), the venue's, PostgreSQL's. */
const perAnswer = ({ done, cpu }: Window) =>
  `bench ${((cpu.bench * 1000) / done).toFixed(2)}, venue ${((cpu.venue * 1000) / done).toFixed(2)}, PostgreSQL ${((cpu.postgres * 1000) / done).toFixed(2)} ms CPU an answer`

const question = 'How do I write a warm about section for my dating doc?'
const direct = async () => {
  const response = await fetch(`${chat.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: question }] }),
  })
  await response.json()
}
const cookies = await Promise.all(Array.from({ length: most }, () => human()))
const throughVenue = async (worker: number) => {
  const response = await post('/api/chat/ask', { message: question }, { cookie: cookies[worker]! })
  const body = (await response.json()) as { answer?: string }
  if (response.status !== 200 || !body.answer) throw new Error(`ask answered ${response.status}`)
}

const throughBare = async (worker: number) => {
  const response = await fetch(`${bare?.url}/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: question, worker }),
  })
  const body = (await response.json()) as { answer?: string }
  if (response.status !== 200 || !body.answer)
    throw new Error(`bare proxy answered ${response.status}`)
}

try {
  console.log(
    `# chat answers per second, ${windowMs / 1000} s windows, ${child ? 'PostgreSQL, the venue in its own process' : 'PGlite, the venue in this process'}`,
  )
  // Warm-up: every path once, at the highest concurrency.
  if (bare) await measure(most, throughBare)
  await measure(most, direct)
  await measure(most, throughVenue)
  for (const concurrency of levels) {
    const baselineWindow = await measure(concurrency, direct)
    const venueWindow = await measure(concurrency, throughVenue)
    const baseline = baselineWindow.rate
    const venueRate = venueWindow.rate
    const bareWindow = bare ? await measure(concurrency, throughBare) : undefined
    console.log(`\n## ${concurrency} concurrent`)
    console.log(`chat stand-in called directly (baseline): ${baseline.toFixed(0)} answers/s`)
    console.log(
      `through the venue (session, credits, safety check both ways, sealing, storage): ${venueRate.toFixed(0)} answers/s`,
    )
    console.log(`ratio: ${(venueRate / baseline).toFixed(2)}x (target >= 0.5x)`)
    console.log(`directly: ${perAnswer(baselineWindow)}`)
    if (child)
      console.log(
        `through the venue: ${perAnswer(venueWindow)}; ${(venueWindow.statements / venueWindow.done).toFixed(2)} SQL statements an answer`,
      )
    if (bareWindow)
      console.log(
        `floor, a bare proxy (node:http both ways, no framework, nothing stored): ${bareWindow.rate.toFixed(0)} answers/s, ${(bareWindow.rate / baseline).toFixed(2)}x; ${perAnswer(bareWindow).replace('venue', 'proxy')}`,
      )
  }
} finally {
  await monitor?.end()
  await child?.stop()
  await bare?.stop()
  await inProcess.close()
  await chat.close()
  await temporary?.drop()
}
// The venue's test harness keeps a shared embeddings stand-in for the process's life.
process.exit(0)
