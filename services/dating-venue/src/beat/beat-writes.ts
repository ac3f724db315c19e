import { pgArray, rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { insertCouples } from '../couples/couple-state.ts'
import type { VenueDeps } from '../deps.ts'
import { type Heart, heartEmbeddingText } from '../heart/heart-schema.ts'
import { insertNotifications, notifyAgent } from '../notify/notify-agent.ts'
import { breathe } from './candidates.ts'
import { chooseIntros, introCandidates } from './intro.ts'

const INTRO_SLICE = 1000

/** What the writes need of a paired persona. */
export type PairedPersona = { id: number; handle: string; heart: Heart | string }

/**
 * The opening line of each proposed pair, through the safety check; pairs
 * come back as `{ a: lower, b: higher, intro }`. Every pair's candidate lines
 * are composed first, then checked together: composed intros repeat (the
 * same shared values and interests), so each distinct text is checked once,
 * and the moderation calls go in batches when the check has a batch form.
 */
export const writeIntros = async (
  deps: VenueDeps,
  proposed: ReadonlyArray<readonly [number, number]>,
  byId: ReadonlyMap<number, PairedPersona>,
) => {
  const pairs = proposed.map(([x, y]): [number, number] => (x < y ? [x, y] : [y, x]))
  const candidates: Awaited<ReturnType<typeof introCandidates>>[] = []
  // A slice at a time: composing 100,000 lines is promises that never wait on I/O, which
  // would hold the event loop for seconds in one go.
  for (let first = 0; first < pairs.length; first += INTRO_SLICE) {
    candidates.push(
      ...(await Promise.all(
        pairs.slice(first, first + INTRO_SLICE).map(([a, b]) => {
          const left = byId.get(a)!
          const right = byId.get(b)!
          return introCandidates(
            { chat: deps.chat },
            [left.heart, right.heart],
            [heartEmbeddingText(left.heart), heartEmbeddingText(right.heart)],
          )
        }),
      )),
    )
    await breathe()
  }
  const intros = await chooseIntros(deps.safety, candidates)
  return pairs.map(([a, b], index) => ({ a, b, intro: intros[index]!.body }))
}

/** A couple this beat formed, and which of its two agents still wait for a callback. */
export type FormedCouple = {
  id: number
  persona_a: number
  persona_b: number
  /** The sides whose agent has a callback URL; the other sides' lines are on the board already. */
  callbacks: Array<{
    personaId: number
    endpointId: number
    callbackUrl: string
    handle: string
    partnerHandle: string
  }>
}

// How a match reads on the board and in a callback's fallback line; PostgreSQL's
// format() fills it in the beat's statement (%1$s the partner's handle, %2$s the couple).
const MATCH_TEXT =
  'you were paired with @%1$s (couple %2$s); reply with POST /api/couples/%2$s/turns'
const matchText = (partnerHandle: string, coupleId: number) =>
  MATCH_TEXT.replace(/%([12])\$s/g, (_, n: string) => (n === '1' ? partnerHandle : `${coupleId}`))

/**
 * Forms the couples of one cycle: couples (unique per cycle and pair, so a
 * re-run or a second replica forms none twice), their courtship seats
 * (`insertCouples`), the opening turns, and a line on the notifications
 * board for each agent without a callback URL, then the `beat` event.
 * Returns the couples this call created, with the agents still to be
 * called back (`notifyCouples`).
 *
 * A large beat's pairs are written in slices of `sliceCouples`, each slice
 * one statement in its own transaction, all or nothing, two at a time on a
 * server: PostgreSQL runs a statement on one core, and 100,000 couples
 * (700,000 rows) took 24 s as one statement and 12 s as two on 2 cores.
 * Small slices commit as they go, so readers of the floor never walk past
 * tens of thousands of turns not yet committed, and on PGlite (one
 * connection) a request waits for one slice, not the whole beat. A slice
 * that fails leaves the others' couples formed; the beat fails, and the
 * next run of the cycle pairs only who is still free (`loadCandidates`).
 */
export const formCouples = async (
  deps: VenueDeps,
  cycleId: string,
  semantic: boolean,
  pairs: ReadonlyArray<{ a: number; b: number; intro: string }>,
  {
    sliceCouples = SLICE_COUPLES,
    analyzeFrom = ANALYZE_FROM,
    event = true,
  }: {
    /** Couples a transaction writes at most. */
    sliceCouples?: number
    /** A write of at least this many couples refreshes the planner's statistics. */
    analyzeFrom?: number
    /** false: the caller records the beat (`recordBeat`) once its writes are all done. */
    event?: boolean
  } = {},
): Promise<FormedCouple[]> => {
  if (pairs.length === 0) return []
  const personas = pairs.flatMap((pair) => [pair.a, pair.b])
  // Pairing is a matching: one seat a persona per beat is what the seats' SQL relies on.
  if (new Set(personas).size !== personas.length)
    throw new Error('a persona is in two pairs of one beat')
  const slices: Array<typeof pairs> = []
  for (let first = 0; first < pairs.length; first += sliceCouples)
    slices.push(pairs.slice(first, first + sliceCouples))
  const large = pairs.length >= analyzeFrom
  let next = 0
  let failed = false
  // PGlite has one connection: more would only queue.
  const connections = deps.database.kind === 'postgres' ? FORM_CONNECTIONS : 1
  const workers = await Promise.allSettled(
    Array.from({ length: Math.min(connections, slices.length) }, async () => {
      const mine: FormedCouple[] = []
      // A failed slice stops the others taking more: the beat fails once no write is in flight.
      while (next < slices.length && !failed) {
        const at = next++
        try {
          mine.push(...(await formSlice(deps, cycleId, semantic, slices[at]!)))
        } catch (error) {
          failed = true
          throw error
        }
        // Once the first slice is in, so the rest are planned for a table that is growing.
        if (large && at === 0) await analyzeWritten(deps)
      }
      return mine
    }),
  )
  if (large) await analyzeWritten(deps)
  const refused = workers.find((worker) => worker.status === 'rejected')
  if (refused) throw refused.reason
  const made = workers.flatMap((worker) => (worker.status === 'fulfilled' ? worker.value : []))
  if (event) await recordBeat(deps, cycleId, semantic, made.length)
  return made.sort((x, y) => x.id - y.id)
}

/**
 * Fresh planner statistics for the tables a large beat wrote. Autovacuum
 * gets there within a minute or so; until then the planner reads a table
 * that was nearly empty at its last ANALYZE as nearly empty still, and the
 * floor's "newest 50 published turns" reads and sorts every turn instead of
 * walking the index from the top: measured with 38,400 new couples, the
 * floor's median went from 1.4 ms to 24 ms, and stayed there. Never waits
 * on a lock (`SKIP_LOCKED`) and never fails the beat: the statistics are
 * an optimisation, the couples are written.
 */
const analyzeWritten = async (deps: VenueDeps) => {
  try {
    await deps.database.db.execute(
      sql`ANALYZE (SKIP_LOCKED) couples, courtship_seats, turns, posts`,
    )
  } catch (error) {
    deps.logger.warn({ err: error }, 'ANALYZE after a large beat failed')
  }
}

/** The `beat` event of a run that formed couples (none for a run that formed none). */
export const recordBeat = async (
  deps: VenueDeps,
  cycleId: string,
  semantic: boolean,
  couples: number,
) => {
  if (couples === 0) return
  await deps.database.db.execute(sql`
    INSERT INTO events (kind, detail)
    VALUES ('beat', jsonb_build_object('cycleId', ${cycleId}::text, 'couples', ${couples}::int,
                                       'semantic', ${semantic}::boolean))`)
}

/** Connections a beat writes its couples on at once, on a server (this machine's cores: 2). */
const FORM_CONNECTIONS = 2
/**
 * Couples a transaction writes at most. 38,400 couples took the same time in
 * slices of 4,000 as in two statements (3.1 s and 3.2 s, 2 cores).
 */
const SLICE_COUPLES = 4000
/** A write of at least this many couples refreshes the planner's statistics (`analyzeWritten`). */
const ANALYZE_FROM = 5000

/** One slice of `formCouples`, in one statement and one transaction. */
const formSlice = async (
  deps: VenueDeps,
  cycleId: string,
  semantic: boolean,
  pairs: ReadonlyArray<{ a: number; b: number; intro: string }>,
): Promise<FormedCouple[]> => {
  const personas = pairs.flatMap((pair) => [pair.a, pair.b])
  // One statement for any number of couples: the rows travel as one array
  // per column, and each step reads the rows the step before it wrote.
  const statement = sql`
    WITH pair AS (
      SELECT a, b, intro
      FROM unnest(${pgArray(pairs.map((p) => p.a))}::int[], ${pgArray(pairs.map((p) => p.b))}::int[],
                  ${pgArray(pairs.map((p) => p.intro))}::text[]) AS t(a, b, intro)),
    ${insertCouples({ cycleId, semantic, maxCourtships: deps.maxCourtships, personas })},
    opened AS (
      INSERT INTO turns (couple_id, persona_id, author, body, status)
      SELECT made.id, NULL, 'matchmaker', pair.intro, 'published'
      FROM made JOIN pair ON pair.a = made.persona_a AND pair.b = made.persona_b),
    side AS (
      SELECT id AS couple, persona_a AS persona, persona_b AS partner FROM made
      UNION ALL SELECT id, persona_b, persona_a FROM made),
    endpoint AS (
      SELECT DISTINCT ON (persona_id) persona_id, id, callback_url
      FROM agent_endpoints
      WHERE status = 'active' AND persona_id = ANY(${pgArray(personas)}::int[])
      ORDER BY persona_id, id DESC),
    told AS (
      SELECT side.couple, side.persona, me.handle, them.handle AS partner_handle,
             endpoint.id AS endpoint_id, coalesce(endpoint.callback_url, '') AS callback_url
      FROM side
      JOIN personas me ON me.id = side.persona
      JOIN personas them ON them.id = side.partner
      LEFT JOIN endpoint ON endpoint.persona_id = side.persona),
    posted AS (${insertNotifications(
      sql`SELECT handle, format(${MATCH_TEXT}::text, partner_handle, couple) FROM told WHERE callback_url = ''`,
    )})
    SELECT made.id, made.persona_a, made.persona_b,
           coalesce(json_agg(json_build_object(
             'personaId', told.persona, 'endpointId', told.endpoint_id, 'callbackUrl', told.callback_url,
             'handle', told.handle, 'partnerHandle', told.partner_handle
           )) FILTER (WHERE told.persona IS NOT NULL), '[]'::json) AS callbacks
    FROM made LEFT JOIN told ON told.couple = made.id AND told.callback_url <> ''
    GROUP BY made.id, made.persona_a, made.persona_b
    ORDER BY made.id`
  return deps.database.db.transaction(async (tx) => {
    // The statement is prepared once per connection; after five runs PostgreSQL
    // may keep a generic plan, which cannot know the arrays' lengths, guesses a
    // few rows and nests loops: 50 s for 25,000 couples instead of 2.
    await tx.execute(sql`SET LOCAL plan_cache_mode = force_custom_plan`)
    return rowsOf<FormedCouple>(await tx.execute(statement))
  })
}

/**
 * Calls back the agents of new couples that have a callback URL (a signed
 * POST; the board when it fails), in the background, after `formCouples`
 * committed: the others' lines went on the board with the couples.
 */
export const notifyCouples = async (
  deps: VenueDeps,
  couples: ReadonlyArray<Pick<FormedCouple, 'id' | 'callbacks'>>,
) => {
  const jobs = couples.flatMap((couple) =>
    couple.callbacks.map(
      (side) => () =>
        notifyAgent(
          deps,
          { id: side.endpointId, callbackUrl: side.callbackUrl },
          side.handle,
          {
            type: 'match',
            coupleId: couple.id,
            personaId: side.personaId,
            partnerHandle: side.partnerHandle,
            turns: `/api/couples/${couple.id}/turns`,
          },
          matchText(side.partnerHandle, couple.id),
        ),
    ),
  )
  // Callbacks go out after the beat answers, a few at a time: one slow agent must not hold up the others.
  const workers = Array.from({ length: 8 }, async () => {
    for (let job = jobs.shift(); job; job = jobs.shift())
      await job().catch((error: unknown) => deps.logger.warn({ err: error }, 'notification failed'))
  })
  Promise.all(workers).catch(() => {})
}
