import { type MineSaltParameters, type MineSaltResult, mineSalt } from '../salt/mine-salt.ts'
import type { MinerPool } from '../salt/miner-pool.ts'
import { canonicalJson } from './salt-seed.ts'

export type SaltMiner = (
  parameters: Omit<MineSaltParameters, 'maxIterations' | 'timeBudgetMs'>,
) => Promise<MineSaltResult>

/**
 * Mining is deterministic, so results can be remembered: an agent that
 * drafts, simulates and then asks for the sign payload mines once. Identical
 * requests in flight share one search. Only successes are kept; a budget
 * failure under load may succeed on retry.
 */
export const createSaltMiner = (
  pool: MinerPool,
  {
    maxIterations,
    timeBudgetMs,
    maxEntries = 1024,
  }: { maxIterations: number; timeBudgetMs: number; maxEntries?: number },
): SaltMiner => {
  const remembered = new Map<string, Promise<MineSaltResult>>()
  return (parameters) => {
    const key = canonicalJson(parameters)
    const known = remembered.get(key)
    if (known) return known
    const search = mineSalt(pool, { ...parameters, maxIterations, timeBudgetMs })
    remembered.set(key, search)
    if (remembered.size > maxEntries) remembered.delete(remembered.keys().next().value!)
    search.then(
      (result) => {
        if (!result.ok) remembered.delete(key)
      },
      () => remembered.delete(key),
    )
    return search
  }
}
