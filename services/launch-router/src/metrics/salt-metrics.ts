import type { Metrics } from '@agents/service-kit'
import { Counter } from 'prom-client'
import type { SaltEvent } from '../payload/mine-salt-cached.ts'

/**
 * The router's own figures: salts asked for, by outcome (`cached`: remembered
 * or shared with a search in flight; `mined`; `iteration_cap`, `time_budget`:
 * searched without a salt), and the worker-seconds the searches took. Returns
 * what `createSaltMiner`'s `onSalt` is told.
 */
export const createSaltMetrics = (metrics: Metrics) => {
  const salts = new Counter({
    name: 'salt_requests_total',
    help: 'Salts asked for, by outcome: cached, mined, iteration_cap, time_budget',
    labelNames: ['outcome'],
    registers: [metrics.registry],
  })
  const seconds = new Counter({
    name: 'salt_mining_seconds_total',
    help: 'Worker-seconds spent mining salts (a cached salt costs none)',
    registers: [metrics.registry],
  })
  return (event: SaltEvent) => {
    if (event.source === 'cache') {
      salts.inc({ outcome: 'cached' })
      return
    }
    const { result } = event
    salts.inc({ outcome: result.ok ? 'mined' : result.reason })
    seconds.inc(result.workMs / 1000)
  }
}
