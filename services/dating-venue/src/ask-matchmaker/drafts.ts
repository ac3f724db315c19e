import { eq, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { chatDrafts } from '../db/schema.ts'
import { answerInterview, type Draft, nextQuestion } from './interview.ts'

/** The wallet's draft, what it skipped, and the question the interview asks next. */
export const readDraft = async (database: VenueDatabase, wallet: string) => {
  const [row] = await database.db.select().from(chatDrafts).where(eq(chatDrafts.wallet, wallet))
  const draft = (row?.draft ?? {}) as Draft
  const skipped = row?.skipped ?? []
  return { draft, skipped, question: nextQuestion(draft, skipped)?.question ?? null }
}

/**
 * One interview turn for the wallet: the answer checked and, when accepted,
 * kept in its draft. Free: the interview is the venue's own work, not the
 * model's, so it never spends a message.
 */
export const interviewTurn = async (database: VenueDatabase, wallet: string, answer: string) => {
  const { draft, skipped } = await readDraft(database, wallet)
  const turn = answerInterview(draft, skipped, answer)
  if (turn.kind === 'accepted')
    await database.db
      .insert(chatDrafts)
      .values({ wallet, draft: turn.draft, skipped: turn.skipped })
      .onConflictDoUpdate({
        target: chatDrafts.wallet,
        set: { draft: turn.draft, skipped: turn.skipped, updatedAt: sql`now()` },
      })
  return {
    accepted: turn.kind === 'accepted',
    reply: turn.reply,
    draft: turn.kind === 'accepted' ? turn.draft : draft,
    complete: turn.kind === 'accepted' && turn.complete,
  }
}
