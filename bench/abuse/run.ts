// `npm run bench:abuse`: on one machine, one abusive client floods each
// service (autocannon, a few connections, as fast as it can, on the
// cheapest write to abuse) while one well-behaved agent runs its normal loop
// at its own pace. The baseline is the same loop alone in the same run (the
// quiet window): compare the agent's success rate and p99 with and without
// the flood (targets: 100 % served, p99 within 2x), what the abuser got, and
// the service process's CPU seconds in each window. Both clients come from
// 127.0.0.1; the services trust X-Forwarded-For and each client sends its
// own public address (agent 203.0.113.7, abuser 198.51.100.66).

import { execFileSync } from 'node:child_process'
import { cpus, loadavg, totalmem } from 'node:os'
import { benchConfig } from '@agents/bench-config'
import { startDevnet } from '@agents/devnet'
import { startFacilitatorProcess } from '../payments/facilitator-process.ts'
import { runLimitsBench } from './limits-figures.ts'
import {
  ABUSER_ADDRESS,
  AGENT_ADDRESS,
  measureService,
  type ServiceRun,
} from './measure-service.ts'
import { startModelStandIn } from './model-stand-in.ts'
import { printRun } from './print-run.ts'
import { railTarget } from './rail-target.ts'
import { routerTarget } from './router-target.ts'
import { summaryTable } from './summary-table.ts'
import type { Target } from './target.ts'
import { venueTarget } from './venue-target.ts'

const seconds = benchConfig.abuse.seconds
const warmUpSeconds = benchConfig.abuse.warmUpSeconds
const connections = benchConfig.abuse.connections
const postgresUrl = benchConfig.abuse.serverUrl
const only = benchConfig.abuse.services
const targets = [routerTarget, venueTarget, railTarget].filter(
  (target) => !only || only.includes(target.service),
)

const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim()
console.log(
  `# abuse benchmark, ${new Date().toISOString()}: ${cpus().length} cores (${cpus()[0]?.model}), ` +
    `${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}, load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}`,
)
console.log(
  `code: ${git('log', '-1', '--format=%h %s')}` +
    ` (${git('status', '--porcelain', '--untracked-files=no').split('\n').filter(Boolean).length} files changed in the working tree)`,
)
console.log(
  `windows of ${seconds} s (quiet: the agent alone; flood: the agent while ${connections} autocannon ` +
    `connections flood), ${warmUpSeconds} s of warm-up; services on their default limits, ` +
    `PGlite${postgresUrl ? ' and PostgreSQL (a fresh database per run)' : ''}; ` +
    `X-Forwarded-For trusted: agent ${AGENT_ADDRESS}, abuser ${ABUSER_ADDRESS}`,
)

const started = await startDevnet({ tempo: false })
const facilitator = await startFacilitatorProcess(started.base.rpcUrl, { receiptPollingMs: 5 })
const devnet = { ...started, facilitator: { ...started.facilitator, url: facilitator.url } }
const standIn = await startModelStandIn()
const runs: { run: ServiceRun; target: Target }[] = []
const limiterCosts: string[] = []
// The services' own limits benches, shortened to keep this run near 5 minutes
// (BENCH_LIMITER_COST=full: their own defaults; 0: not run).
const limiterCostMode = benchConfig.abuse.limiterCost
const SHORT: Record<string, Record<string, string>> = {
  'dating-venue': { BENCH_ROUNDS: '10' },
  'swap-rail': { BENCH_ROUNDS: '1', BENCH_REQUESTS: '300', BENCH_CONCURRENT_REQUESTS: '600' },
}
/** The limiter's cost as another bench measures it (run after the floods, alone). */
const limiterCost = async (folder: string, file: string) => {
  if (limiterCostMode === '0') return
  const env = limiterCostMode === 'short' ? (SHORT[folder] ?? {}) : {}
  const limits = await runLimitsBench(folder, file, { env })
  const settings = Object.entries(env)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')
  const heading = `limiter's cost (bench/${folder}/${file}${settings ? `, ${settings}` : ''})`
  if (!limits)
    limiterCosts.push(`${heading}: no such bench; see the service's section of bench/README.md`)
  else
    limiterCosts.push(`${heading}${limits.ok ? '' : ', FAILED'}:\n  ${limits.lines.join('\n  ')}`)
  console.log(`\n${limiterCosts.at(-1)}`)
}
let failed = false
try {
  for (const target of targets) {
    // The smoke run proves each service's loop once: on PostgreSQL when there is one.
    const backends =
      target.stateful && postgresUrl
        ? benchConfig.smoke
          ? [postgresUrl]
          : [undefined, postgresUrl]
        : [undefined]
    for (const backend of backends) {
      console.log(
        `\nload average before ${target.service}: ${loadavg()
          .map((n) => n.toFixed(1))
          .join(' ')}`,
      )
      const run = await measureService(target, {
        devnet,
        standIn,
        postgresUrl: backend,
        seconds,
        warmUpSeconds,
        connections,
      })
      printRun(run, target)
      runs.push({ run, target })
    }
    await limiterCost(target.service, 'limits-bench.ts')
  }
  await limiterCost('limits', 'run.ts')
  console.log(`\n## summary\n\n${summaryTable(runs)}\n`)
  for (const line of limiterCosts) console.log(line)
} catch (error) {
  failed = true
  console.error(error)
} finally {
  await standIn.close()
  facilitator.stop()
  await started.stop()
}
process.exit(failed ? 1 : 0)
