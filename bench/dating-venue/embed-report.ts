import type { CpuSample } from './embed-machine.ts'

// Printing for embed.ts: one line per measured pair, then a Markdown table.

export type Result = CpuSample & { rate: number }
export type Pair = { label: string; single: Result[]; pool: Result[] }

// Another session taking more than a quarter of a core during either half of
// a pair makes that pair's ratio about the neighbour, not the pool.
const QUIET = 0.25
export const isQuiet = (...results: Result[]) =>
  results.every((result) => result.otherCores < QUIET)

export const fixed = (value: number, digits = 1) => value.toFixed(digits)
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const mean = (list: Result[], key: keyof Result) =>
  list.reduce((sum, r) => sum + r[key], 0) / list.length
// Texts per CPU-second of this process: what a core buys, whatever the load.
const perCore = (list: Result[]) =>
  list.reduce((sum, r) => sum + r.rate / r.ourCores, 0) / list.length

export const describe = (result: Result) =>
  `${fixed(result.rate).padStart(6)}/s (${fixed(result.ourCores, 2)} cores, rest ${fixed(result.otherCores, 2)}, steal ${fixed(result.stealCores, 2)})`

export const printPairLine = (round: number, label: string, x: Result, y: Result) =>
  console.log(
    `${String(round).padStart(5)}  ${label.padEnd(22)}${describe(x).padEnd(47)}${describe(y).padEnd(47)}${fixed(y.rate / x.rate, 2)}x${isQuiet(x, y) ? '' : '  (machine busy)'}`,
  )

export const printPairHeader = () =>
  console.log(
    `\nround  ${'pattern'.padEnd(22)}${'single (1 worker)'.padEnd(47)}${'pool'.padEnd(47)}ratio`,
  )

/** The summary table and one verdict line a pair: ratio of means, medians, quiet rounds only. */
export const printSummary = ({
  pairs,
  threads,
  goal,
  main,
}: {
  pairs: Pair[]
  threads: number
  goal: number
  main?: { label: string; results: Result[]; baseline: Result[] }
}) => {
  const row = (label: string, list: Result[], ratio: string) =>
    console.log(
      `| ${label} | ${fixed(mean(list, 'rate'))} | ${fixed(mean(list, 'ourCores'), 2)} | ${fixed(perCore(list))} | ${fixed(mean(list, 'otherCores'), 2)} | ${fixed(mean(list, 'stealCores'), 2)} | ${ratio} |`,
    )
  console.log(
    '\n| figure | texts/s | cores used | texts per CPU-second | rest of machine (cores) | steal | ratio to single |',
  )
  console.log('|---|---|---|---|---|---|---|')
  const verdicts: string[] = []
  for (const { label, single, pool } of pairs) {
    const ratios = pool.map((r, index) => r.rate / single[index]!.rate)
    const quiet = ratios.filter((_, index) => isQuiet(single[index]!, pool[index]!))
    const ofMeans = fixed(mean(pool, 'rate') / mean(single, 'rate'), 2)
    row(`1 worker, ${label} (baseline)`, single, '1.00x')
    row(
      `pool of ${threads}, ${label}`,
      pool,
      `**${ofMeans}x** (rounds ${ratios.map((r) => fixed(r, 2)).join(', ')})`,
    )
    verdicts.push(
      `${label}: ratio of means ${ofMeans}x, median of rounds ${fixed(median(ratios), 2)}x; ` +
        (quiet.length > 0
          ? `quiet rounds only (${quiet.length} of ${ratios.length}): median ${fixed(median(quiet), 2)}x`
          : 'no quiet round: run again on a quiet machine') +
        `; goal ${goal}x`,
    )
  }
  if (main)
    row(
      main.label,
      main.results,
      `${fixed(mean(main.results, 'rate') / mean(main.baseline, 'rate'), 2)}x`,
    )
  console.log('')
  for (const line of verdicts) console.log(line)
}
