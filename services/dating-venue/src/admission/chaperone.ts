import { countToday } from '../db/day-counters.ts'
import type { VenueDeps } from '../deps.ts'
import { type Heart, heartProse } from '../heart/heart-schema.ts'
import type { SafetyVerdict } from '../safety/index.ts'

/**
 * The chaperone (spec, admission gate 2): the heart's prose through the
 * fail-closed safety check. Every verdict is counted for the operator
 * console's `chaperone_today`; a counter the database cannot take never
 * changes the verdict.
 */
export const runChaperone = async (
  deps: Pick<VenueDeps, 'safety' | 'database' | 'logger'>,
  heart: Heart | string,
): Promise<SafetyVerdict> => {
  const verdict = await deps.safety(heartProse(heart), { kind: 'heart' })
  const outcome = verdict.unavailable
    ? 'unavailable'
    : verdict.verdict === 'allow'
      ? 'allow'
      : verdict.verdict === 'hold'
        ? 'held'
        : 'blocked'
  await countToday(deps.database.db, `chaperone_${outcome}`).catch((error: unknown) =>
    deps.logger.warn({ err: error }, 'chaperone counter not written'),
  )
  return verdict
}
