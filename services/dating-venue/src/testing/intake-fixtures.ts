import { randomBytes } from 'node:crypto'
import { formatCredential, newSecret } from '../credentials/credentials.ts'
import { heartFiles, owners } from '../db/schema.ts'
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

/**
 * An owner with a filed doc and its credential, written straight to the
 * database (a wallet of its own each time, so each is a new owner with no
 * order yet): for tests and benches of what owners do after intake.
 */
export const ownerWithDoc = async (venue: Venue, heart: object = sampleHeart) => {
  const { secret, hash } = newSecret()
  const { db } = venue.deps.database
  const [owner] = await db
    .insert(owners)
    .values({ wallet: `0x${randomBytes(20).toString('hex')}`, credentialHash: hash })
    .returning({ id: owners.id })
  await db.insert(heartFiles).values({
    ownerId: owner!.id,
    homeMarket: 'bay_area',
    activeMarket: 'bay_area',
    researchOptin: 'none',
    ageAttested: true,
    heart,
    paymentReference: `fixture:${owner!.id}`,
  })
  return { ownerId: owner!.id, credential: formatCredential('owner', owner!.id, secret) }
}
