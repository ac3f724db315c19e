import { pgArray, runExclusive } from '@agents/service-kit/db'
import { and, asc, eq, gt, lt, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { chatMessages } from '../db/schema.ts'
import type { Sealer } from '../intake/seal.ts'
import { coalesce, coalescedPer } from './coalesce.ts'

type Exchange = { speaker: string; human: string; answer: string }

// The exchanges of concurrent answers in one INSERT; unnest keeps their
// order, so each human line gets the id just before its answer's.
const insertExchanges = coalescedPer((database: VenueDatabase) =>
  coalesce(async (exchanges: Exchange[]) => {
    const speakers = exchanges.flatMap(({ speaker }) => [speaker, speaker])
    const roles = exchanges.flatMap(() => ['human', 'matchmaker'])
    const texts = exchanges.flatMap(({ human, answer }) => [human, answer])
    await database.client.query(
      `INSERT INTO chat_messages (speaker, role, text_sealed)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[])`,
      [pgArray(speakers), pgArray(roles), pgArray(texts)],
    )
    return exchanges.map(() => undefined)
  }),
)

/**
 * One exchange kept for the page, sealed at rest; the sweep deletes it
 * after the window. Stored before the answer is returned (with the
 * exchanges of concurrent answers, one statement).
 */
export const storeExchange = async (
  { database, sealer }: { database: VenueDatabase; sealer: Sealer },
  speaker: string,
  human: string,
  answer: string,
) => {
  await insertExchanges(database)({
    speaker,
    human: sealer.seal(human),
    answer: sealer.seal(answer),
  })
}

/** The speaker's exchanges still inside the window, oldest first, opened for the page. */
export const readExchanges = async (
  { database, sealer }: { database: VenueDatabase; sealer: Sealer },
  speaker: string,
  windowHours: number,
) => {
  const rows = await database.db
    .select()
    .from(chatMessages)
    .where(
      and(
        eq(chatMessages.speaker, speaker),
        gt(chatMessages.createdAt, sql`now() - make_interval(hours => ${windowHours})`),
      ),
    )
    .orderBy(asc(chatMessages.id))
    .limit(200)
  return rows.map((row) => ({
    role: row.role,
    text: sealer.open(row.textSealed),
    at: row.createdAt.toISOString(),
  }))
}

/** Advisory lock of the chat sweep: one replica sweeps at a time. */
export const CHAT_SWEEP_LOCK = 0x63686174

/** Deletes chat text older than the window; returns how many rows went (0 when another replica holds the lock). */
export const sweepChat = async (database: VenueDatabase, windowHours: number) => {
  const swept = await runExclusive(database.db, CHAT_SWEEP_LOCK, (tx) =>
    tx
      .delete(chatMessages)
      .where(lt(chatMessages.createdAt, sql`now() - make_interval(hours => ${windowHours})`))
      .returning({ id: chatMessages.id }),
  )
  return swept.ran ? swept.value.length : 0
}
