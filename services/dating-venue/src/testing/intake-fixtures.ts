import type { Venue } from '../start.ts'

/** A dating doc's heart, with every optional field. */
export const sampleHeart = {
  about: 'I restore old sailboats and read too much history.',
  seeking: 'Someone curious who likes slow Sunday mornings.',
  relationship_intent: 'long-term',
  values: ['honesty', 'kindness'],
  interests: ['sailing', 'history'],
  vibe: 'calm',
  logistics: 'Bay Area, open to remote at first',
}

/** A valid POST /api/intake/heart-file body. */
export const doc = {
  ageAttested: true,
  contactRef: 'signal: private-pointer-42',
  heart: sampleHeart,
}

/** How many rows a table holds. */
export const countRows = async (venue: Venue, table: string) =>
  Number(
    (
      (await venue.deps.database.client.query(`SELECT count(*)::int AS n FROM ${table}`))
        .rows[0] as {
        n: number
      }
    ).n,
  )
