import { availableParallelism } from 'node:os'
import type { ServiceRun, WindowCpu } from './measure-service.ts'
import { ABUSER_ADDRESS, AGENT_ADDRESS } from './measure-service.ts'
import { summarize, summarizeSteps } from './summarize.ts'
import type { Target } from './target.ts'

const cores = availableParallelism()
const ms = (value: number) => (Number.isNaN(value) ? '-' : `${value.toFixed(1)} ms`)
const pct = (value: number) => (Number.isNaN(value) ? '-' : `${value.toFixed(1)} %`)
const cpu = (window: WindowCpu, abuser = 0) => {
  // autocannon's own count covers a slightly different span: never below zero.
  const rest = Math.max(
    0,
    window.machine - window.service - window.postgres - window.bench - abuser,
  )
  return [
    `service ${window.service.toFixed(2)} s (${(window.service / window.wallSeconds).toFixed(2)} cores)`,
    ...(window.postgres > 0 ? [`postgres ${window.postgres.toFixed(2)} s`] : []),
    `bench process (agent, stand-ins) ${window.bench.toFixed(2)} s`,
    ...(abuser > 0 ? [`abuser (autocannon) ${abuser.toFixed(2)} s`] : []),
    `rest of the machine (devnet, facilitator, other users) ${rest.toFixed(2)} s`,
    `of ${(window.wallSeconds * cores).toFixed(1)} s (${cores} cores x ${window.wallSeconds.toFixed(1)} s)`,
  ].join(', ')
}

/** The abuser's answers: 2xx, 429, 503 and the rest. */
export const abuserCounts = (byStatus: Record<string, number>) => {
  let ok = 0
  let limited = 0
  let unavailable = 0
  const other: Record<string, number> = {}
  for (const [status, count] of Object.entries(byStatus)) {
    if (status.startsWith('2')) ok += count
    else if (status === '429') limited += count
    else if (status === '503') unavailable += count
    else other[status] = count
  }
  return { ok, limited, unavailable, other }
}

/** The service's extra CPU in the flood window per request the abuser had answered, in us. */
export const abuserCpuMicros = (run: ServiceRun) => {
  const extra =
    run.flood.cpu.service -
    (run.quiet.cpu.service * run.flood.cpu.wallSeconds) / run.quiet.cpu.wallSeconds
  return (extra * 1e6) / Math.max(1, run.flood.abuser.answered)
}

/** One service run, in full: both windows, every step, the abuser, CPU. */
export const printRun = (run: ServiceRun, target: Target) => {
  console.log(`\n## ${run.service}${run.backend === 'none' ? '' : ` on ${run.backend}`}\n`)
  const quiet = summarize(run.quiet.samples)
  const flood = summarize(run.flood.samples)
  for (const [name, window, figures] of [
    ['quiet', run.quiet, quiet],
    ['flood', run.flood, flood],
  ] as const)
    console.log(
      `agent (${AGENT_ADDRESS}), ${name}: ${window.loops} loops, ${figures.requests} requests, ` +
        `served ${pct(figures.servedPct)}, p50 ${ms(figures.p50)}, p90 ${ms(figures.p90)}, p99 ${ms(figures.p99)}`,
    )
  console.log(
    `p99 flood/quiet ${(flood.p99 / quiet.p99).toFixed(2)}x (target <= 2x); ` +
      `served under flood ${pct(flood.servedPct)} (target 100 %)`,
  )
  console.log('per step, quiet | flood:')
  const quietSteps = new Map(summarizeSteps(run.quiet.samples).map((step) => [step.step, step]))
  for (const step of summarizeSteps(run.flood.samples)) {
    const calm = quietSteps.get(step.step)
    console.log(
      `  ${step.step.padEnd(18)} ${calm ? `served ${pct(calm.servedPct)} p50 ${ms(calm.p50)} p99 ${ms(calm.p99)}` : '-'} | ` +
        `served ${pct(step.servedPct)} p50 ${ms(step.p50)} p99 ${ms(step.p99)}` +
        (step.refusedStatuses.length
          ? `, refused: ${step.refusedStatuses.join(', ')} (first: ${step.firstRefusal})`
          : ''),
    )
  }
  const { abuser } = run.flood
  const counts = abuserCounts(abuser.byStatus)
  console.log(
    `abuser (${ABUSER_ADDRESS}): sent ${abuser.sent}, answered ${abuser.answered} ` +
      `(2xx ${counts.ok}, 429 ${counts.limited}, 503 ${counts.unavailable}` +
      `${Object.keys(counts.other).length ? `, other ${JSON.stringify(counts.other)}` : ''}), ` +
      `errors ${abuser.errors}, timeouts ${abuser.timeouts}, p50 ${abuser.p50} ms, p99 ${abuser.p99} ms; ` +
      `${target.floodTakes}: ${counts.ok}; autocannon CPU ${abuser.cpuSeconds.toFixed(2)} s`,
  )
  console.log(
    `service CPU per abuser request: ${abuserCpuMicros(run).toFixed(0)} us ` +
      '(the flood window less the quiet one, over the answers the abuser got)',
  )
  console.log(`CPU quiet: ${cpu(run.quiet.cpu)}`)
  console.log(`CPU flood: ${cpu(run.flood.cpu, run.flood.abuser.cpuSeconds)}`)
  const outboundQuiet = Object.values(run.quiet.outbound).reduce((sum, n) => sum + n, 0)
  const outboundFlood = Object.values(run.flood.outbound).reduce((sum, n) => sum + n, 0)
  if (outboundQuiet + outboundFlood > 0)
    console.log(
      `outbound calls (model stand-in): quiet ${JSON.stringify(run.quiet.outbound)}, ` +
        `flood ${JSON.stringify(run.flood.outbound)}`,
    )
  if (Object.keys(run.after).length) console.log(`after the flood: ${JSON.stringify(run.after)}`)
  if (run.metrics.length) console.log(`/metrics:\n  ${run.metrics.join('\n  ')}`)
}
