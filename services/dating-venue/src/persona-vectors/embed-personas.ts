import { pgArray, rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { personaVectors } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { vectorToBytes } from '../embeddings/index.ts'
import { type Heart, heartEmbeddingText } from '../heart/heart-schema.ts'

const BATCH = 64

type Missing = { id: number; heart: Heart | string }

/** Admitted personas without a vector of the current model (a model change re-embeds everyone). */
const missingVectors = async (deps: VenueDeps, personaIds?: readonly number[]) => {
  const result = await deps.database.db.execute(sql`
    SELECT p.id, p.heart FROM personas p
    LEFT JOIN persona_vectors v ON v.persona_id = p.id AND v.model_id = ${deps.embedder.modelId}
    WHERE p.status = 'admitted' AND v.persona_id IS NULL
      ${personaIds ? sql`AND p.id = ANY(${pgArray(personaIds)}::int[])` : sql``}
    ORDER BY p.id`)
  return rowsOf<Missing>(result)
}

/**
 * Embeds the canonical heart text of admitted personas that lack a vector
 * of the current model and stores each with the model id and dimension.
 * A failing batch is retried once; a second failure rejects (the beat then
 * reports semantic matching as unavailable).
 */
export const embedMissing = async (deps: VenueDeps, personaIds?: readonly number[]) => {
  const missing = await missingVectors(deps, personaIds)
  for (let start = 0; start < missing.length; start += BATCH) {
    const batch = missing.slice(start, start + BATCH)
    const texts = batch.map((persona) => heartEmbeddingText(persona.heart))
    const vectors = await deps.embedder.embed(texts).catch(() => deps.embedder.embed(texts))
    await deps.database.db
      .insert(personaVectors)
      .values(
        batch.map((persona, index) => ({
          personaId: persona.id,
          modelId: deps.embedder.modelId,
          dimension: vectors[index]!.length,
          vector: vectorToBytes(vectors[index]!),
        })),
      )
      .onConflictDoUpdate({
        target: personaVectors.personaId,
        set: {
          modelId: sql`excluded.model_id`,
          dimension: sql`excluded.dimension`,
          vector: sql`excluded.vector`,
          createdAt: sql`now()`,
        },
      })
    // The replica holding the match index puts them in now, not at the next beat.
    deps.matchPool.changed({ in: batch.map((persona) => persona.id) })
  }
  return missing.length
}

/** Admission calls this without waiting: the answer never waits for the model. */
export const embedInBackground = (deps: VenueDeps, personaId: number) => {
  embedMissing(deps, [personaId]).catch((error: unknown) =>
    deps.logger.warn({ err: error, personaId }, 'embedding failed; the next beat retries'),
  )
}
