import { RowId, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'

export const BeatBody = z
  .object({ cycleId: SafeText.regex(/^[\w:.-]{1,80}$/).optional() })
  .openapi('Beat', { description: 'optional; an empty body (or none) runs a fresh cycle' })

export const BeatResult = z
  .object({
    cycleId: z.string(),
    pairs: z.number().int(),
    created: z.number().int(),
    admitted: z.number().int(),
    semantic: z.boolean(),
    note: z.string().optional(),
    coupleIds: z.array(z.number().int()),
    pool: z
      .object({
        read: z.number().int().openapi({
          description: 'vectors read from the database this beat (newcomers to the kept index)',
        }),
        left: z.number().int().openapi({
          description: 'personas that left the kept index before pairing (no longer waiting)',
        }),
        waiting: z.number().int().openapi({
          description: 'personas in the kept index after the beat, waiting for a partner',
        }),
      })
      .openapi({ description: 'the matchmaker\'s kept index (README, "The kept index")' }),
    phasesMs: z.record(z.string(), z.number()),
    stepsMs: z
      .record(z.string(), z.number())
      .openapi({ description: 'steps inside the phases: candidates, history, sync, stage' }),
    pairing: z
      .object({
        mode: z.enum(['exact', 'approximate']),
        phases: z.number().int().openapi({ description: 'passes over the unresolved personas' }),
        requeried: z
          .number()
          .int()
          .openapi({ description: 'personas re-queried, over all phases' }),
        conflicts: z.number().int().openapi({
          description: 'pairs dropped because they named a persona already paired (0 expected)',
        }),
        pairs: z.number().int(),
        searchMs: z.number().openapi({ description: 'the pairing run in the index process' }),
        saveMs: z.number().openapi({ description: 'writing the index snapshot' }),
        memory: z
          .object({ rss: z.number(), heapUsed: z.number(), arrayBuffers: z.number() })
          .openapi({ description: 'the index process as the run ended, in bytes' }),
        stepsMs: z.record(z.string(), z.number()).openapi({
          description: 'the index process: pack, lists, resolve, requery, restore (ms)',
        }),
        writtenWhilePairing: z.number().int().openapi({
          description: "pairs of the run's first phase, written while the rest paired",
        }),
      })
      .optional()
      .openapi({ description: 'what the pairing run did (semantic beats only)' }),
  })
  .openapi('BeatResult')

/**
 * The shape the route reads: a key that is a string and any value. Which
 * keys and values are allowed is the settings store's (its messages: `key
 * not allowed` with the allowed keys, `value required`, `invalid value for
 * <key>`), so the documented body below is narrower than this.
 */
export const SettingsInput = z.object({ key: z.string(), value: z.unknown().optional() })

export const SettingsBody = z
  .object({
    key: z.enum(['cap', 'unowned_share_pct', 'venue_open']),
    value: z.union([SafeText.min(1), z.number().int(), z.boolean()]),
  })
  .openapi('Setting')

export const SettingStored = z
  .object({
    ok: z.literal(true),
    key: z.enum(['cap', 'unowned_share_pct', 'venue_open']),
    value: z.string().openapi({
      description:
        'as stored: cap digits, unowned_share_pct digits (0-100), venue_open "true"/"false"',
    }),
  })
  .openapi('SettingStored')

export const BrokerBody = z.object({ coupleId: RowId }).openapi('Broker')

export const Brokered = z
  .object({ ok: z.literal(true), coupleId: z.number().int() })
  .openapi('Brokered')
