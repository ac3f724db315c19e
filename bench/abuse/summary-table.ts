import type { ServiceRun } from './measure-service.ts'
import { abuserCounts, abuserCpuMicros } from './print-run.ts'
import { summarize } from './summarize.ts'
import type { Target } from './target.ts'

const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(1))
const pct = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(1))

/** Every run in one Markdown table (what bench/README.md records). */
export const summaryTable = (runs: readonly { run: ServiceRun; target: Target }[]) => {
  const lines = [
    '| service | backend | agent served % quiet / flood | p50 ms quiet / flood | p99 ms quiet / flood | p99 ratio | abuser sent | 2xx | 429 | 503 | other | abuser took | service CPU s quiet / flood | CPU us per abuser request | targets |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ]
  for (const { run, target } of runs) {
    const quiet = summarize(run.quiet.samples)
    const flood = summarize(run.flood.samples)
    const ratio = flood.p99 / quiet.p99
    const counts = abuserCounts(run.flood.abuser.byStatus)
    const other =
      Object.values(counts.other).reduce((sum, n) => sum + n, 0) + run.flood.abuser.errors
    const met = [
      flood.servedPct === 100 ? 'served: met' : 'served: missed',
      ratio <= 2 ? 'p99: met' : 'p99: missed',
    ].join(', ')
    lines.push(
      `| ${run.service} | ${run.backend} | ${pct(quiet.servedPct)} / ${pct(flood.servedPct)} | ` +
        `${ms(quiet.p50)} / ${ms(flood.p50)} | ${ms(quiet.p99)} / ${ms(flood.p99)} | ${ratio.toFixed(2)}x | ` +
        `${run.flood.abuser.sent} | ${counts.ok} | ${counts.limited} | ${counts.unavailable} | ${other} | ` +
        `${counts.ok} ${target.floodTakes.split(' (')[0]} | ` +
        `${run.quiet.cpu.service.toFixed(2)} / ${run.flood.cpu.service.toFixed(2)} | ` +
        `${abuserCpuMicros(run).toFixed(0)} | ${met} |`,
    )
  }
  return lines.join('\n')
}
