import { pgArray, rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { insertCouples } from '../couples/couple-state.ts'
import type { VenueDeps } from '../deps.ts'
import { type Heart, heartEmbeddingText } from '../heart/heart-schema.ts'
import { notifyAgent, postNotifications } from '../notify/notify-agent.ts'
import { writeIntro } from './intro.ts'

/** What the writes need of a paired persona. */
export type PairedPersona = { id: number; handle: string; heart: Heart | string }

/** The opening line of each proposed pair, through the safety check; pairs come back as `{ a: lower, b: higher, intro }`. */
export const writeIntros = async (
  deps: VenueDeps,
  proposed: ReadonlyArray<readonly [number, number]>,
  byId: ReadonlyMap<number, PairedPersona>,
) => {
  // Composed intros repeat (the same shared values and interests): check each text once per beat.
  const verdicts = new Map<string, ReturnType<VenueDeps['safety']>>()
  const safety: VenueDeps['safety'] = (text, context) => {
    const known = verdicts.get(text)
    if (known) return known
    const verdict = deps.safety(text, context)
    verdicts.set(text, verdict)
    return verdict
  }
  return Promise.all(
    proposed.map(async ([x, y]) => {
      const [a, b] = x < y ? [x, y] : [y, x]
      const left = byId.get(a)!
      const right = byId.get(b)!
      const intro = await writeIntro(
        { safety, chat: deps.chat },
        [left.heart, right.heart],
        [heartEmbeddingText(left.heart), heartEmbeddingText(right.heart)],
      )
      return { a, b, intro: intro.body }
    }),
  )
}

/**
 * Forms the couples of one cycle in one transaction: couples (unique per
 * cycle and pair, so a re-run or a second replica forms none twice), the
 * two courtship seats (their key keeps a persona in one courtship), and
 * the opening turn. Returns the couples this call created.
 */
export const formCouples = async (
  deps: VenueDeps,
  cycleId: string,
  semantic: boolean,
  pairs: ReadonlyArray<{ a: number; b: number; intro: string }>,
) => {
  if (pairs.length === 0) return []
  return deps.database.db.transaction(async (tx) => {
    const made = await insertCouples(tx, { cycleId, semantic, pairs })
    if (made.length === 0) return []
    const introOf = new Map(pairs.map((pair) => [`${pair.a}:${pair.b}`, pair.intro]))
    await tx.execute(sql`
      INSERT INTO turns (couple_id, persona_id, author, body, status)
      SELECT t.couple, NULL, 'matchmaker', t.body, 'published'
      FROM unnest(${pgArray(made.map((c) => c.id))}::int[], ${pgArray(made.map((c) => introOf.get(`${c.persona_a}:${c.persona_b}`)!))}::text[]) AS t(couple, body)`)
    await tx.execute(sql`
      INSERT INTO events (kind, detail)
      VALUES ('beat', ${JSON.stringify({ cycleId, couples: made.length, semantic })}::jsonb)`)
    return made
  })
}

/** Tells both agents of each new couple (signed callback, else the notifications board), in the background. */
export const notifyCouples = async (
  deps: VenueDeps,
  couples: ReadonlyArray<{ id: number; persona_a: number; persona_b: number }>,
  handles: Map<number, string>,
) => {
  const ids = couples.flatMap((c) => [c.persona_a, c.persona_b])
  if (ids.length === 0) return
  const endpoints = rowsOf<{ id: number; persona_id: number; callback_url: string | null }>(
    await deps.database.db.execute(sql`
      SELECT id, persona_id, callback_url FROM agent_endpoints
      WHERE status = 'active' AND persona_id = ANY(${pgArray(ids)}::int[])`),
  )
  const endpointOf = new Map(
    endpoints.map((e) => [e.persona_id, { id: e.id, callbackUrl: e.callback_url }]),
  )
  const messages = couples.flatMap((couple) =>
    [
      [couple.persona_a, couple.persona_b],
      [couple.persona_b, couple.persona_a],
    ].map(([self, partner]) => ({
      self: self!,
      handle: handles.get(self!)!,
      message: {
        type: 'match',
        coupleId: couple.id,
        personaId: self,
        partnerHandle: handles.get(partner!),
        turns: `/api/couples/${couple.id}/turns`,
      },
      text: `you were paired with @${handles.get(partner!)} (couple ${couple.id}); reply with POST /api/couples/${couple.id}/turns`,
    })),
  )
  // Agents without a callback read the board: one insert for all of them.
  await postNotifications(
    deps,
    messages
      .filter((m) => !endpointOf.get(m.self)?.callbackUrl)
      .map(({ handle, text }) => ({ handle, text })),
  )
  const jobs = messages
    .filter((m) => endpointOf.get(m.self)?.callbackUrl)
    .map((m) => () => notifyAgent(deps, endpointOf.get(m.self), m.handle, m.message, m.text))
  // Callbacks go out after the beat answers, a few at a time: one slow agent must not hold up the others.
  const workers = Array.from({ length: 8 }, async () => {
    for (let job = jobs.shift(); job; job = jobs.shift())
      await job().catch((error: unknown) => deps.logger.warn({ err: error }, 'notification failed'))
  })
  Promise.all(workers).catch(() => {})
}
