import { type MineSaltParameters, type MineSaltResult, mineSalt } from '../salt/mine-salt.ts'
import type { MinerPool } from '../salt/miner-pool.ts'
import { canonicalJson } from './salt-seed.ts'

/**
 * What a new search costs the client that asks for it (a remembered salt
 * costs nothing): `admit` before it starts, which throws (a 429) when the
 * client has nothing left; `spend` after, with the worker-milliseconds it took.
 */
export type MiningCharge = {
  admit: () => Promise<void>
  spend: (workMs: number) => Promise<void>
}

/** Where a salt came from: remembered (or shared with a search in flight), or a search of its own. */
export type SaltEvent = { source: 'cache' } | { source: 'search'; result: MineSaltResult }

export type SaltMiner = (
  parameters: Omit<MineSaltParameters, 'maxIterations' | 'timeBudgetMs'>,
  charge?: MiningCharge,
) => Promise<MineSaltResult>

export type CreateSaltMinerParameters = {
  maxIterations: number
  timeBudgetMs: number
  maxEntries?: number
  /** Told of every salt asked for (metrics). */
  onSalt?: (event: SaltEvent) => void
}

/**
 * Mining is deterministic, so results can be remembered: an agent that
 * drafts, simulates and then asks for the sign payload mines once. Identical
 * requests in flight share one search. Only successes are kept; a budget
 * failure under load may succeed on retry. Only a new search is charged.
 */
export const createSaltMiner = (
  pool: MinerPool,
  { maxIterations, timeBudgetMs, maxEntries = 1024, onSalt }: CreateSaltMinerParameters,
): SaltMiner => {
  const remembered = new Map<string, Promise<MineSaltResult>>()
  const known = (key: string) => {
    const search = remembered.get(key)
    if (search) onSalt?.({ source: 'cache' })
    return search
  }
  return async (parameters, charge) => {
    const key = canonicalJson(parameters)
    const cached = known(key)
    if (cached) return cached
    await charge?.admit()
    // The same search may have started while the charge was being counted.
    const started = known(key)
    if (started) return started
    const search = mineSalt(pool, { ...parameters, maxIterations, timeBudgetMs })
    remembered.set(key, search)
    if (remembered.size > maxEntries) remembered.delete(remembered.keys().next().value!)
    search.then(
      (result) => {
        if (!result.ok) remembered.delete(key)
      },
      () => remembered.delete(key),
    )
    const result = await search
    onSalt?.({ source: 'search', result })
    await charge?.spend(result.workMs)
    return result
  }
}
