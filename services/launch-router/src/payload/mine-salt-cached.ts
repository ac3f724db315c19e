import type { Refusal } from '@agents/service-kit'
import { type MineSaltParameters, type MineSaltResult, mineSalt } from '../salt/mine-salt.ts'
import type { MinerPool } from '../salt/miner-pool.ts'
import { canonicalJson } from './salt-seed.ts'

/**
 * What a new search costs the client that asks for it (a remembered salt
 * costs nothing): `admit` before it starts, which returns a refusal (a 429)
 * when the client has nothing left; `spend` after, with the worker-milliseconds it took.
 */
export type MiningCharge = {
  /** Whose budget it is: a client's new searches run one at a time. */
  client: string
  admit: () => Promise<Refusal<429> | undefined>
  spend: (workMs: number) => Promise<void>
}

/** Where a salt came from: remembered (or shared with a search in flight), or a search of its own. */
export type SaltEvent = { source: 'cache' } | { source: 'search'; result: MineSaltResult }

export type SaltMiner = (
  parameters: Omit<MineSaltParameters, 'maxIterations' | 'timeBudgetMs'>,
  charge?: MiningCharge,
) => Promise<MineSaltResult | Refusal<429>>

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
 * failure under load may succeed on retry.
 *
 * Only a new search is charged, and a client's new searches run one after
 * another (on this replica): each is admitted once the last one has been
 * charged, so a burst of new intents cannot all pass the check while the
 * budget still looks whole and then take the pool for minutes together.
 */
export const createSaltMiner = (
  pool: MinerPool,
  { maxIterations, timeBudgetMs, maxEntries = 1024, onSalt }: CreateSaltMinerParameters,
): SaltMiner => {
  const remembered = new Map<string, Promise<MineSaltResult>>()
  const turns = new Map<string, Promise<unknown>>()
  const known = (key: string) => {
    const search = remembered.get(key)
    if (search) onSalt?.({ source: 'cache' })
    return search
  }
  const search = async (key: string, parameters: Parameters<SaltMiner>[0]) => {
    const running = mineSalt(pool, { ...parameters, maxIterations, timeBudgetMs })
    remembered.set(key, running)
    if (remembered.size > maxEntries) remembered.delete(remembered.keys().next().value!)
    running.then(
      (result) => {
        if (!result.ok) remembered.delete(key)
      },
      () => remembered.delete(key),
    )
    const result = await running
    onSalt?.({ source: 'search', result })
    return result
  }
  /** Runs `work` after the client's previous new search has been charged. */
  const inTurn = <result>(client: string, work: () => Promise<result>): Promise<result> => {
    const mine = (turns.get(client) ?? Promise.resolve()).then(work)
    const settled = mine.then(
      () => {},
      () => {},
    )
    turns.set(client, settled)
    void settled.then(() => {
      if (turns.get(client) === settled) turns.delete(client)
    })
    return mine
  }
  return async (parameters, charge) => {
    const key = canonicalJson(parameters)
    const cached = known(key)
    if (cached) return cached
    if (!charge) return search(key, parameters)
    return inTurn(charge.client, async () => {
      // The same search may have started (or ended) while this one waited its turn.
      const started = known(key)
      if (started) return started
      const refused = await charge.admit()
      if (refused) return refused
      const meanwhile = known(key) // another client's, started while this one was admitted
      if (meanwhile) return meanwhile
      const result = await search(key, parameters)
      await charge.spend(result.workMs)
      return result
    })
  }
}
