import { ApiError } from '@agents/service-kit'
import { eq, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { settings } from '../db/schema.ts'

/** Operator settings the console may change at run time, with how each value is read. */
const KEYS = {
  cap: (value: string) => (/^\d{1,8}$/.test(value) ? value : undefined),
  /** Percent of the cap that personas without an owner may hold (0-100). */
  unowned_share_pct: (value: string) =>
    /^\d{1,3}$/.test(value) && Number(value) <= 100 ? String(Number(value)) : undefined,
  venue_open: (value: string) =>
    ['true', 'false', '1', '0'].includes(value)
      ? String(value === 'true' || value === '1')
      : undefined,
} as const
export type SettingKey = keyof typeof KEYS

/**
 * Settings live in the database so every replica reads the same value; the
 * configuration gives the defaults until the operator sets one.
 */
export const createVenueSettings = (
  database: VenueDatabase,
  defaults: { cap: number; venueOpen: boolean; unownedSharePct: number },
) => {
  const capSql = () =>
    sql`coalesce((SELECT value::int FROM settings WHERE key = 'cap'), ${defaults.cap}::int)`
  const shareSql = () =>
    sql`coalesce((SELECT value::int FROM settings WHERE key = 'unowned_share_pct'), ${defaults.unownedSharePct}::int)`
  const read = async (key: SettingKey) => {
    const [row] = await database.db.select().from(settings).where(eq(settings.key, key))
    return row?.value
  }
  return {
    cap: async () => Number((await read('cap')) ?? defaults.cap),
    venueOpen: async () => ((await read('venue_open')) ?? String(defaults.venueOpen)) === 'true',
    unownedSharePct: async () =>
      Number((await read('unowned_share_pct')) ?? defaults.unownedSharePct),
    /** SQL for the cap inside a statement (the admission's conditional UPDATE). */
    capSql,
    /** SQL for the seats personas without an owner may hold: the share of the cap, rounded down. */
    unownedSeatsSql: () => sql`((${capSql()})::bigint * (${shareSql()}) / 100)`,
    set: async (key: string, value: unknown) => {
      // Own keys only: `constructor` or `__proto__` are not settings.
      if (!Object.hasOwn(KEYS, key))
        throw new ApiError(400, 'key not allowed', { allowed: Object.keys(KEYS) })
      if (value === undefined || value === null || value === '')
        throw new ApiError(400, 'value required')
      // A JSON scalar only: String([5]) would read as 5.
      const scalar = ['string', 'number', 'boolean'].includes(typeof value)
      const normalised = scalar ? KEYS[key as SettingKey](String(value)) : undefined
      if (normalised === undefined) throw new ApiError(400, `invalid value for ${key}`)
      await database.db
        .insert(settings)
        .values({ key, value: normalised })
        .onConflictDoUpdate({
          target: settings.key,
          set: { value: normalised, updatedAt: new Date() },
        })
      return normalised
    },
  }
}
export type VenueSettings = ReturnType<typeof createVenueSettings>
