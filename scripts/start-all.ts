// `npm start`: starts every service in services/ (each on its own default
// port, embedded defaults) and says where each one listens. Ctrl-C stops them all.
// For one machine and a look around; production starts each service on its own
// (`npm start -w services/<name>`, its settings and database its own).
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const services = readdirSync(join(root, 'services'))
  .filter((name) => existsSync(join(root, 'services', name, 'src', 'main.ts')))
  .sort()

// A service that takes payments says so in its package.json
// ("agentServices": { "payments": true }). Unless payment settings are
// configured, they all get the local devnet (anvil chains, USDC, facilitator).
const takesPayments = services.filter((name) => {
  const manifest = JSON.parse(readFileSync(join(root, 'services', name, 'package.json'), 'utf8'))
  return manifest.agentServices?.payments === true
})
// A service that values a studio token holding ("studioToken": true, the dating venue's chat
// tiers) gets, on the devnet, a studio token and a price stand-in (VENUE_STUDIO_*).
const wantsStudio = services.filter((name) => {
  const manifest = JSON.parse(readFileSync(join(root, 'services', name, 'package.json'), 'utf8'))
  return manifest.agentServices?.studioToken === true
})
let paymentEnv: Record<string, string> = {}
let studioEnv: Record<string, string> = {}
let stopDevnet: (() => Promise<void>) | undefined
if (takesPayments.length === 0) {
  process.stdout.write('payments: no running service takes payments; no devnet started\n')
} else if (process.env.PAYMENTS_FACILITATOR_URL) {
  process.stdout.write(
    `payments: configured (facilitator ${process.env.PAYMENTS_FACILITATOR_URL})\n`,
  )
} else {
  const { devnetEnv, startDevnet, startStudioToken } = await import('@agents/devnet')
  const devnet = await startDevnet()
  paymentEnv = devnetEnv(devnet)
  stopDevnet = devnet.stop
  process.stdout.write(
    `payments: DEVNET (local anvil chains, throwaway keys, no real money): facilitator ${devnet.facilitator.url}, ` +
      `Base ${devnet.base.rpcUrl}${devnet.tempo ? `, Tempo ${devnet.tempo.rpcUrl}` : ''}\n`,
  )
  if (wantsStudio.length > 0 && !process.env.VENUE_STUDIO_TOKEN) {
    // The devnet payer holds $100 of it (200 free chat messages a day); payer2 holds none (3).
    const studio = await startStudioToken({
      rpcUrl: devnet.base.rpcUrl,
      usd: '0.25',
      mints: [{ to: devnet.accounts.payer.address, tokens: '400' }],
    })
    studioEnv = studio.env()
    stopDevnet = async () => {
      await studio.stop()
      await devnet.stop()
    }
    process.stdout.write(
      `studio token: DEVNET ${studio.token} on Base, $0.25 from ${studio.priceUrl}; ` +
        `${devnet.accounts.payer.address} holds 400 ($100)\n`,
    )
  }
}

const children = services.map((name) => {
  // Node runs the TypeScript itself (type stripping), as `npm start` in the service does.
  const child = spawn(process.execPath, [join('src', 'main.ts')], {
    cwd: join(root, 'services', name),
    env: {
      ...process.env,
      ...(takesPayments.includes(name) ? paymentEnv : {}),
      ...(wantsStudio.includes(name) ? studioEnv : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  createInterface({ input: child.stdout }).on('line', (line) => {
    // Each service prints one plain "<name> listening on <url>" line; the rest is its JSON log.
    if (line.includes(' listening on ')) process.stdout.write(`${line}\n`)
    else if (process.env.START_VERBOSE) process.stdout.write(`[${name}] ${line}\n`)
  })
  child.on('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(`${name} exited (${signal ?? code}); stopping the others\n`)
      stop(code ?? 1)
    }
  })
  return child
})

let stopping = false
const stop = (code = 0) => {
  stopping = true
  for (const child of children) child.kill('SIGTERM')
  setTimeout(() => process.exit(code), 2_000).unref()
  Promise.all(children.map((child) => new Promise((done) => child.once('exit', done))))
    .then(() => stopDevnet?.())
    .then(() => process.exit(code))
}
process.on('SIGINT', () => stop())
process.on('SIGTERM', () => stop())
process.stdout.write(`starting ${services.join(', ')} (START_VERBOSE=1 shows their logs)\n`)
