import { type Refusal, refusal } from '@agents/service-kit'
import { type AnyTransaction, preparedOnce } from '@agents/service-kit/db'
import { desc, eq, inArray, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { couples, heartFiles, owners, personas, personaVectors } from '../db/schema.ts'
import { cosine } from '../embeddings/cosine.ts'
import { vectorFromBytes } from '../embeddings/vector-bytes.ts'
import type { Heart } from '../heart/heart-schema.ts'
import { heartProse } from '../heart/heart-schema.ts'
import { REPORT_ERRORS } from './compatibility-errors.ts'
import { type ReportSide, type ReportSignals, reportSignals } from './report-signals.ts'

type Executor = AnyTransaction | VenueDatabase['db']

/** What a report is written from: the owner's own heart, and the pair's derived signals. */
export type ReportInputs = {
  ownHeart: Heart | string
  signals: ReportSignals | undefined
  /** The other side's prose, only to check the report never quotes it; never sent anywhere. */
  otherHeartText: string | undefined
}

export type ReportInputsOutcome = { ok: true; inputs: ReportInputs } | Refusal<403 | 404 | 409>

const marketOf = (row: { homeMarket: string | null; activeMarket: string | null }) => ({
  home: row.homeMarket ?? 'other',
  active: row.activeMarket ?? 'remote',
})

/** The owner and its latest doc in one read (no doc: one row, heart null); every paid report reads it. */
const ownerAndLatestHeart = preparedOnce((db: Executor) =>
  db
    .select({ id: owners.id, heart: heartFiles.heart })
    .from(owners)
    .leftJoin(heartFiles, eq(heartFiles.ownerId, owners.id))
    .where(eq(owners.id, sql.placeholder('ownerId')))
    .orderBy(desc(heartFiles.id))
    .limit(1)
    .prepare('venue_owner_latest_heart'),
)

/**
 * Loads what an owner's report needs, and refuses what no payment could
 * fix: an unknown owner or couple (404), a couple the owner is not in
 * (403), an owner with no doc (409). Runs before the 402 and again at
 * delivery (the reconciler may deliver later).
 */
export const loadReportInputs = async (
  db: Executor,
  { ownerId, coupleId }: { ownerId: number; coupleId: number | undefined },
): Promise<ReportInputsOutcome> => {
  const [owner] = await ownerAndLatestHeart(db).execute({ ownerId })
  if (!owner) return refusal(404, REPORT_ERRORS.noSuchOwner)
  if (coupleId === undefined) {
    if (owner.heart === null) return refusal(409, REPORT_ERRORS.noDoc)
    return {
      ok: true,
      inputs: {
        ownHeart: owner.heart as Heart | string,
        signals: undefined,
        otherHeartText: undefined,
      },
    }
  }
  const [couple] = await db.select().from(couples).where(eq(couples.id, coupleId))
  if (!couple) return refusal(404, REPORT_ERRORS.noSuchCouple)
  const pair = await db
    .select()
    .from(personas)
    .where(inArray(personas.id, [couple.personaA, couple.personaB]))
  const mine = pair.find((persona) => persona.ownerId === ownerId)
  const theirs = pair.find((persona) => persona !== mine)
  if (!mine || !theirs) return refusal(403, REPORT_ERRORS.notInCouple)
  const vectors = await db
    .select()
    .from(personaVectors)
    .where(inArray(personaVectors.personaId, [mine.id, theirs.id]))
  const [a, b] = [mine.id, theirs.id].map((id) => vectors.find((row) => row.personaId === id))
  // Only vectors of one model are comparable (a model change re-embeds everyone).
  const similarity =
    a && b && a.modelId === b.modelId && a.dimension === b.dimension
      ? cosine(vectorFromBytes(a.vector, a.dimension), vectorFromBytes(b.vector, b.dimension))
      : null
  const side = (row: typeof mine): ReportSide => ({
    heart: row.heart as Heart | string,
    market: marketOf(row),
  })
  return {
    ok: true,
    inputs: {
      ownHeart: mine.heart as Heart | string,
      signals: reportSignals(side(mine), side(theirs), similarity),
      otherHeartText: heartProse(theirs.heart as Heart | string),
    },
  }
}
