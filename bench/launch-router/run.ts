// Launch-router benchmarks. Each figure is printed beside a baseline measured
// in the same run on the same machine, and the ratio is what to compare
// across runs (the machines are shared and noisy).
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { createMinerPool, mineSalt } from '@agents/launch-router/salt'
import autocannon from 'autocannon'
import { keccak256 } from 'viem'

const seconds = Number(process.env.BENCH_SECONDS ?? 8)
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
    await mineSalt(pool, { ...parameters, seed: keccak256('0x01'), maxIterations: 2_000_000 }) // warm-up
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
  for (let attempt = 0; attempt < 200; attempt++) {
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

/** Requests per second, and the server's CPU time per request in microseconds. */
const load = async ({ url, pid }: { url: string; pid: number }, path: string, body: string) => {
  const before = cpuSeconds(pid)
  const result = await autocannon({
    url: `${url}${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections: 50,
    duration: seconds,
  })
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  }
  const cpuMicros = ((cpuSeconds(pid) - before) * 1e6) / result.requests.total
  return { rps: result.requests.average, cpuMicros }
}

/** Starts a server script in its own process, its output discarded, on a free port. */
const startProcess = async (script: string, env: Record<string, string>) => {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: 'ignore',
  })
  const url = `http://127.0.0.1:${port}`
  await waitFor(`${url}/health`)
  return { url, pid: child.pid!, stop: () => child.kill('SIGTERM') }
}

const routerMain = fileURLToPath(
  new URL('../../services/launch-router/src/main.ts', import.meta.url),
)
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
const router = await startProcess(routerMain, { LOG_LEVEL: 'info', HOST: '127.0.0.1' })
const quietRouter = await startProcess(routerMain, { LOG_LEVEL: 'warn', HOST: '127.0.0.1' })
const padsJson = await (
  await fetch(`${router.url}/api/v1/list_pads`, {
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
  const show = (label: string, figure: { rps: number; cpuMicros: number }, goal = '') =>
    console.log(
      `${label.padEnd(40)} ${format(figure.rps).padStart(7)}/s  ${ratio(figure.rps, baseline.rps)}  ` +
        `server CPU ${figure.cpuMicros.toFixed(0)} us/request (${ratio(baseline.cpuMicros, figure.cpuMicros)})${goal}`,
    )
  show('bare node:http, list_pads JSON (baseline)', baseline)
  show(
    'list_pads, request log on (info)',
    await load(router, '/api/v1/list_pads', '{}'),
    '   goal 0.7x',
  )
  show('list_pads, request log off (warn)', await load(quietRouter, '/api/v1/list_pads', '{}'))
  show(
    'get_sign_payload clanker-v4, log on',
    await load(router, '/api/v1/get_sign_payload', signBody),
    '   goal 0.7x',
  )
  show(
    'get_sign_payload clanker-v4, log off',
    await load(quietRouter, '/api/v1/get_sign_payload', signBody),
  )
} finally {
  router.stop()
  quietRouter.stop()
  bare.stop()
}
