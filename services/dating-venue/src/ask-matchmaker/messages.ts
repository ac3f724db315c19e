import { pgArray } from '@agents/service-kit/db'
import { and, desc, eq, gt, sql } from 'drizzle-orm'
import { coalesce, coalescedPer } from '../db/coalesce.ts'
import type { VenueDatabase } from '../db/open.ts'
import { chatMessages } from '../db/schema.ts'
import type { Sealer } from '../db/seal.ts'

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

/**
 * The speaker's newest `limit` lines still inside the window, oldest first
 * (newest last), opened for the page; `more` when older lines inside the
 * window were left out. Only this speaker's: a wallet reads its own.
 */
export const readExchanges = async (
  { database, sealer }: { database: VenueDatabase; sealer: Sealer },
  speaker: string,
  { windowHours, limit }: { windowHours: number; limit: number },
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
    .orderBy(desc(chatMessages.id))
    .limit(limit + 1)
  return {
    messages: rows
      .slice(0, limit)
      .reverse()
      .map((row) => ({
        role: row.role,
        text: sealer.open(row.textSealed),
        at: row.createdAt.toISOString(),
      })),
    more: rows.length > limit,
  }
}
