import type { GrantMeter } from './grant-meter.ts'

/**
 * A `GrantMeter` held in this process's memory: one number per match, kept
 * for the life of the process because a match can be re-read for fresh grants
 * and the seller does not know how long its redemption window is. Counters
 * vanish on restart and are not shared between processes: one process only.
 *
 * @example const meter = createMemoryMeter()
 */
export const createMemoryMeter = (): GrantMeter => {
  const used = new Map<string, number>()
  // The last queued task per match; removed once the queue drains so idle
  // matches cost nothing.
  const tails = new Map<string, Promise<void>>()

  return {
    async remaining(matchId, limitTokens) {
      return Math.max(0, limitTokens - (used.get(matchId) ?? 0))
    },

    async record(matchId, tokens) {
      if (!Number.isSafeInteger(tokens) || tokens < 0)
        throw new RangeError(`tokens must be a non-negative integer, got ${tokens}`)
      used.set(matchId, (used.get(matchId) ?? 0) + tokens)
    },

    exclusive(matchId, task) {
      const previous = tails.get(matchId) ?? Promise.resolve()
      const run = previous.then(task)
      const tail = run.then(
        () => {},
        () => {},
      )
      tails.set(matchId, tail)
      void tail.then(() => {
        if (tails.get(matchId) === tail) tails.delete(matchId)
      })
      return run
    },
  }
}
