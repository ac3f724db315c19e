import type { Sample } from './agent-window.ts'

/** The p-th percentile (nearest rank) of `values`; NaN when empty. */
export const percentile = (values: readonly number[], p: number) => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

/** Served share and latency of a set of samples (all steps together). */
export const summarize = (samples: readonly Sample[]) => {
  const times = samples.map((sample) => sample.ms)
  const served = samples.filter((sample) => sample.served).length
  return {
    requests: samples.length,
    served,
    servedPct: samples.length === 0 ? Number.NaN : (served / samples.length) * 100,
    p50: percentile(times, 50),
    p90: percentile(times, 90),
    p99: percentile(times, 99),
  }
}
export type Summary = ReturnType<typeof summarize>

/** The same per step, in the order the steps first appear. */
export const summarizeSteps = (samples: readonly Sample[]) => {
  const steps = [...new Set(samples.map((sample) => sample.step))]
  return steps.map((step) => {
    const own = samples.filter((sample) => sample.step === step)
    const refused = own.filter((sample) => !sample.served)
    const statuses = [...new Set(refused.map((sample) => sample.status))].sort()
    return { step, ...summarize(own), refusedStatuses: statuses, firstRefusal: refused[0]?.detail }
  })
}
