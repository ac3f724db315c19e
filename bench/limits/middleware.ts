// What the request-limit middleware costs per request, in CPU, on the
// smallest route there is (a constant JSON answer): two apps in this
// process, the same but for `limits`, each sent BENCH_REQUESTS sequential
// requests per round for BENCH_ROUNDS rounds in turn. The CPU figure is this
// process's (server and the undici client together), so the difference
// between the two apps is the middleware's own cost; the route without it
// is the baseline.
import { benchConfig } from '@agents/bench-config'
import {
  createApp,
  createLimits,
  createLogger,
  createMetrics,
  startTestServer,
} from '@agents/service-kit'
import { request } from 'undici'

const requests = benchConfig.limits.requests
const rounds = benchConfig.limits.rounds
const logger = createLogger({ name: 'bench', level: 'silent' })

const start = async (limited: boolean) => {
  const limits = await createLimits({
    service: 'bench',
    store: { kind: 'memory' },
    policies: { read: { points: 1e9, windowSeconds: 60 } },
  })
  const app = createApp({
    name: 'bench',
    version: '1',
    logger,
    metrics: createMetrics({ service: 'bench', processMetrics: false }),
    // `/x` declares no limit: it counts against `unlisted`, as a read.
    ...(limited ? { limits: { limits, unlisted: { read: 'read' } } } : {}),
  })
  app.get('/x', (c) => c.json({ hello: 'world', n: [1, 2, 3] }))
  return startTestServer(app)
}

const servers = { off: await start(false), on: await start(true) }
const cpu: Record<'off' | 'on', number[]> = { off: [], on: [] }
// The first round warms both up and is not kept.
for (let round = 0; round <= rounds; round++)
  for (const arm of (round % 2 ? ['on', 'off'] : ['off', 'on']) as Array<'off' | 'on'>) {
    const url = `${servers[arm].url}/x`
    const before = process.cpuUsage()
    for (let index = 0; index < requests; index++) {
      const answer = await request(url)
      await answer.body.arrayBuffer()
    }
    const used = process.cpuUsage(before)
    if (round > 0) cpu[arm].push((used.user + used.system) / requests)
  }
for (const server of Object.values(servers)) await server.close()

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const [off, on] = [median(cpu.off), median(cpu.on)]
console.log(`limit middleware: ${rounds} rounds of ${requests} sequential requests per app`)
console.log(`limits off (baseline): ${off.toFixed(1)} us CPU per request (client and server)`)
console.log(`limits on (memory):    ${on.toFixed(1)} us CPU per request`)
console.log(`middleware: +${(on - off).toFixed(1)} us per request, ratio ${(on / off).toFixed(2)}x`)
