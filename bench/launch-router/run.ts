// Launch-router benchmarks. Each figure is printed beside a baseline measured
// in the same run on the same machine, and the ratio is what to compare
// across runs (the machines are shared and noisy).

import { execFileSync, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { benchConfig, TS_ARGS } from '@agents/bench-config'
import { createMinerPool, mineSalt } from '@agents/launch-router/salt'
import { createTestDatabase } from '@agents/service-kit/db'
import autocannon from 'autocannon'
import { keccak256 } from 'viem'

const seconds = benchConfig.launchRouter.seconds
// The PostgreSQL server for the shared limits' figures (a fresh database is made and dropped).
const serverUrl = benchConfig.launchRouter.serverUrl
const format = (value: number) => Math.round(value).toLocaleString('en-US')
const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}x`

/** OpenSSL's SHA3-256 over 85 bytes: one Keccak-f[1600] block per hash, like one CREATE2 candidate. */
const opensslRate = () => {
  const output = execFileSync(
    'openssl',
    ['speed', '-evp', 'sha3-256', '-bytes', '85', '-seconds', String(Math.min(seconds, 5))],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  )
  const line = output.split('\n').find((text) => /^sha3-256\s/.test(text))
  const kilobytes = Number(line?.trim().split(/\s+/).at(-1)?.replace('k', ''))
  return (kilobytes * 1000) / 85
}

/** Candidates per second: an impossible rule, so every candidate up to the cap is tried. */
const minerRate = async (threads: number) => {
  const pool = await createMinerPool({ size: threads })
  try {
    const parameters = {
      deployer: '0xe2cE6ab80874Fa9Fa2aAE65D277Dd6B8e65C9De0' as const,
      initCodeHash: keccak256('0x00'),
      rule: { type: 'address-suffix' as const, hex: 'ffffffffffffffff' },
      timeBudgetMs: 600_000,
    }
    await mineSalt(pool, {
      ...parameters,
      seed: keccak256('0x01'),
      maxIterations: benchConfig.launchRouter.minerWarmUp,
    }) // warm-up
    const tries = Math.round(2_000_000 * threads * seconds)
    const started = performance.now()
    const result = await mineSalt(pool, {
      ...parameters,
      seed: keccak256('0x02'),
      maxIterations: tries,
    })
    const elapsed = (performance.now() - started) / 1000
    if (result.ok) throw new Error('an impossible rule was satisfied')
    return result.tried / elapsed
  } finally {
    await pool.close()
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })

const waitFor = async (url: string) => {
  // 30 s: a start takes a few seconds, many more on a machine others keep busy.
  for (let attempt = 0; attempt < 600; attempt++) {
    try {
      if ((await fetch(url)).ok) return
    } catch {}
    await new Promise((done) => setTimeout(done, 50))
  }
  throw new Error(`${url} did not come up`)
}

/** User + system CPU seconds a process has used so far (Linux /proc). */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** CPU seconds of every PostgreSQL server process on this machine (the database's share of a request). */
const postgresCpuSeconds = () => {
  let total = 0
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      if (stat.includes(' (postgres) ')) total += cpuSeconds(Number(pid))
    } catch {}
  }
  return total
}

type Figure = { rps: number; cpuMicros: number; databaseMicros?: number }

/**
 * Requests per second, and the server's CPU time per request in microseconds
 * (with `database`, PostgreSQL's too). `clients`: that many addresses sent in
 * X-Forwarded-For in turn (the server trusts one proxy), else one client.
 */
const load = async (
  { url, pid }: { url: string; pid: number },
  path: string,
  body: string,
  { clients = 0, database = false }: { clients?: number; database?: boolean } = {},
): Promise<Figure> => {
  const before = cpuSeconds(pid)
  const databaseBefore = database ? postgresCpuSeconds() : 0
  let sent = 0
  const result = await autocannon({
    url: `${url}${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections: 50,
    duration: seconds,
    ...(clients > 0
      ? {
          requests: [
            {
              setupRequest: (request) => {
                const client = sent++ % clients
                request.headers = {
                  ...request.headers,
                  'x-forwarded-for': `198.18.${client >> 8}.${client & 255}`,
                }
                return request
              },
            },
          ],
        }
      : {}),
  })
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  }
  const cpuMicros = ((cpuSeconds(pid) - before) * 1e6) / result.requests.total
  return {
    rps: result.requests.average,
    cpuMicros,
    ...(database
      ? { databaseMicros: ((postgresCpuSeconds() - databaseBefore) * 1e6) / result.requests.total }
      : {}),
  }
}

// Servers still running when the bench exits, on a failure above all, are stopped with it.
const children = new Set<ReturnType<typeof spawn>>()
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM')
})

/** Starts a server script in its own process, its output discarded, on a free port. */
const startProcess = async (script: string, env: Record<string, string>) => {
  const port = await freePort()
  const child = spawn(process.execPath, [...TS_ARGS, script], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: 'ignore',
  })
  children.add(child)
  const url = `http://127.0.0.1:${port}`
  await waitFor(`${url}/health`)
  return { url, pid: child.pid!, stop: () => child.kill('SIGTERM') }
}

const routerServer = fileURLToPath(new URL('./router-server.ts', import.meta.url))
const bareServer = fileURLToPath(new URL('./bare-server.ts', import.meta.url))

console.log(
  `# launch-router benchmarks (${seconds} s per figure, ${(await import('node:os')).availableParallelism()} cores)\n`,
)

console.log('## Salt mining (CREATE2 candidates per second)')
const openssl = opensslRate()
const one = await minerRate(1)
const pool = await minerRate(2)
console.log(`openssl speed -evp sha3-256 -bytes 85 (baseline, 1 core): ${format(openssl)}/s`)
console.log(`miner, 1 worker:  ${format(one)}/s  ${ratio(one, openssl)} of OpenSSL   (goal 1.0x)`)
console.log(
  `miner, 2 workers: ${format(pool)}/s  ${ratio(pool, openssl)} of OpenSSL   (goal 1.8x)\n`,
)

console.log('## HTTP (autocannon, 50 connections, requests per second)')
// A read limit no run reaches: every request is counted, none refused.
const router = (env: Record<string, string>) =>
  startProcess(routerServer, {
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_READ: '999999999/60',
    TRUST_FORWARDED_FOR: '1',
    ...env,
  })
const database = serverUrl ? await createTestDatabase(serverUrl) : undefined
const routers = {
  logged: await router({ LOG_LEVEL: 'info' }),
  // The router as it was before its hot path: every request through the app.
  app: await router({ LOG_LEVEL: 'info', BENCH_HOT_PATH: 'off' }),
  off: await router({ BENCH_LIMITS: 'off' }),
  memory: await router({}),
  ...(database ? { postgres: await router({ RATE_LIMIT_DATABASE_URL: database.url }) } : {}),
}
const padsJson = await (
  await fetch(`${routers.off.url}/api/v1/list_pads`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
).text()
const bare = await startProcess(bareServer, { BODY: padsJson })
const signBody = JSON.stringify({
  intent: {
    name: 'Bench',
    symbol: 'BNCH',
    chainId: 8453,
    pad: 'clanker-v4',
    creator: '0x00000000000000000000000000000000000000A1',
  },
})
try {
  const baseline = await load(bare, '/api/v1/list_pads', '{}')
  const show = (label: string, figure: Figure, goal = '') =>
    console.log(
      `${label.padEnd(58)} ${format(figure.rps).padStart(7)}/s  ${ratio(figure.rps, baseline.rps)}  ` +
        `server CPU ${figure.cpuMicros.toFixed(0)} us/request (${ratio(baseline.cpuMicros, figure.cpuMicros)})${goal}`,
    )
  /** A limit's cost beside the same route without limits, measured in the same run. */
  const showLimited = (label: string, figure: Figure, off: Figure) =>
    console.log(
      `${label.padEnd(58)} ${format(figure.rps).padStart(7)}/s  ${ratio(figure.rps, off.rps)} of off  ` +
        `server CPU ${figure.cpuMicros.toFixed(0)} us/request (+${(figure.cpuMicros - off.cpuMicros).toFixed(0)} us, ` +
        `${ratio(figure.cpuMicros, off.cpuMicros)})` +
        (figure.databaseMicros === undefined
          ? ''
          : `, PostgreSQL CPU ${figure.databaseMicros.toFixed(0)} us/request`),
    )
  show('bare node:http, list_pads JSON (baseline)', baseline)
  for (const [route, body] of [
    ['list_pads', '{}'],
    ['get_sign_payload', signBody],
  ] as const) {
    const path = `/api/v1/${route}`
    const label = route === 'list_pads' ? 'list_pads' : 'get_sign_payload clanker-v4'
    const logged = await load(routers.logged, path, body)
    show(`${label}, request log on (info)`, logged, '   goal 0.7x')
    show(`${label}, the app alone (no hot path), log on`, await load(routers.app, path, body))
    const off = await load(routers.off, path, body)
    show(`${label}, log off, limits off`, off)
    const memory = await load(routers.memory, path, body)
    showLimited(`${label}, log off, limits in memory`, memory, off)
    console.log(
      `${`${label}, what the request log costs`.padEnd(58)} ${(logged.cpuMicros - memory.cpuMicros).toFixed(0)} us/request (log on minus log off, both limited in memory)`,
    )
    if (routers.postgres)
      showLimited(
        `${label}, log off, limits in PostgreSQL`,
        await load(routers.postgres, path, body, { database: true }),
        off,
      )
    if (route !== 'list_pads') continue
    showLimited(
      `${label}, memory, 1,000 clients`,
      await load(routers.memory, path, body, { clients: 1000 }),
      off,
    )
    if (routers.postgres)
      showLimited(
        `${label}, PostgreSQL, 1,000 clients`,
        await load(routers.postgres, path, body, { clients: 1000, database: true }),
        off,
      )
  }
} finally {
  for (const running of Object.values(routers)) running.stop()
  bare.stop()
  // Let the routers close their pools before the database goes.
  await new Promise((done) => setTimeout(done, 500))
  await database?.drop()
}
