// The abusive client in a process of its own (autocannon, as fast as it can
// over a few connections), so its event loop does not delay the well-behaved
// agent's timings in the bench's process. `startFlood` spawns this file; run
// directly it reads its settings from FLOOD_SETTINGS, prints `started` when
// the load begins and one JSON line with the outcome at the end.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { TS_ARGS } from '@agents/bench-config'
import autocannon from 'autocannon'
import { type FloodKind, floodRequest } from './flood-requests.ts'

export type FloodSettings = {
  url: string
  kind: FloodKind
  seconds: number
  connections: number
  forwardedFor: string
  tag: string
  model: string
}

export type FloodOutcome = {
  sent: number
  answered: number
  byStatus: Record<string, number>
  errors: number
  timeouts: number
  seconds: number
  p50: number
  p99: number
  /** This process's CPU seconds while it flooded (autocannon's own cost). */
  cpuSeconds: number
}

/**
 * Starts the flood; resolves once it is under way with its pid and `done`,
 * which resolves with the outcome when its `seconds` are over.
 */
export const startFlood = (settings: FloodSettings) =>
  new Promise<{ pid: number; done: Promise<FloodOutcome> }>((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_ARGS, fileURLToPath(import.meta.url)], {
      env: { ...process.env, FLOOD_SETTINGS: JSON.stringify(settings) },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let finish: (outcome: FloodOutcome) => void = () => {}
    let fail: (error: Error) => void = () => {}
    const done = new Promise<FloodOutcome>((resolveDone, rejectDone) => {
      finish = resolveDone
      fail = rejectDone
    })
    let outcome: FloodOutcome | undefined
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'started') resolve({ pid: child.pid!, done })
      else if (line.startsWith('{')) outcome = JSON.parse(line) as FloodOutcome
    })
    child.once('exit', (code) => {
      if (outcome) finish(outcome)
      else {
        const error = new Error(`flood process exited with ${code} without an outcome`)
        reject(error)
        fail(error)
      }
    })
  })

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const settings = JSON.parse(process.env.FLOOD_SETTINGS ?? '') as FloodSettings
  const request = floodRequest(settings.kind, settings.tag, settings.model)
  const run = autocannon({
    url: settings.url,
    connections: settings.connections,
    duration: settings.seconds,
    headers: { 'x-forwarded-for': settings.forwardedFor },
    requests: [request],
  })
  const cpuBefore = process.cpuUsage()
  process.stdout.write('started\n')
  const result = await run
  const cpu = process.cpuUsage(cpuBefore)
  const byStatus: Record<string, number> = {}
  // Not in @types/autocannon: the count of answers per status code.
  const { statusCodeStats = {} } = result as unknown as {
    statusCodeStats?: Record<string, { count: number }>
  }
  for (const [status, { count }] of Object.entries(statusCodeStats)) byStatus[status] = count
  const outcome: FloodOutcome = {
    sent: result.requests.sent,
    answered: Object.values(byStatus).reduce((sum, count) => sum + count, 0),
    byStatus,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  }
  process.stdout.write(`${JSON.stringify(outcome)}\n`)
}
