import { benchConfig } from '@agents/bench-config'
import type { RequirementV2 } from '@agents/payments'
import { baseRequirementOf, paymentSignatureHeader } from '@agents/payments/testing'
import type { PrivateKeyAccount } from 'viem/accounts'
import type { Call } from './agent-window.ts'
import { createCall } from './agent-window.ts'
import type { Target } from './target.ts'

const ADMIN_TOKEN = 'bench-abuse-operator-token-0123456789'

const HEART = {
  about: 'I restore old sailboats and read too much history on rainy weekends.',
  seeking: 'Someone patient to take things slow with, who likes the sea.',
  relationship_intent: 'long-term',
  values: ['honesty', 'curiosity'],
  interests: ['sailing', 'history'],
}
const DOC = { ageAttested: true, contactRef: 'signal: bench-agent-pointer', heart: HEART }

// Posts and turns vary from loop to loop, in plain prose (no digits, links or handles).
const OPENINGS = ['Still looking', 'Hoping to meet', 'Would love to find', 'Keen to meet']
const ENDINGS = [
  'someone who likes slow Sunday mornings.',
  'a fellow sailor for calm summer evenings.',
  'a reader of history who laughs easily.',
  'someone patient who enjoys long walks by the sea.',
  'a curious mind who bakes on rainy days.',
]
const line = (n: number) =>
  `${OPENINGS[n % OPENINGS.length]} ${ENDINGS[Math.floor(n / OPENINGS.length) % ENDINGS.length]}`

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` })

/** Files the doc, paid by `account` on the devnet: the owner's id and (first time) credential. */
const payIntake = async (call: Call, requirement: RequirementV2, account: PrivateKeyAccount) =>
  call('intake (paid)', '/api/intake/heart-file', {
    body: DOC,
    headers: { 'payment-signature': await paymentSignatureHeader(account, requirement) },
    expect: [200],
  })

/** A courtship turn every this many loops (the two sides in turn). */
const TURN_EVERY = 8
/** A paid intake and a new persona every this many loops (the two owners in turn). */
const PERSONA_EVERY = 10
/** A board post every this many loops, by the persona just entered. */
const POST_EVERY = 20

/**
 * The dating venue. Setup (not timed): two owners file their docs (paid),
 * each enters a persona, and an operator beat pairs them into a couple.
 * Each loop (every 500 ms) the agent reads the `seeking` board, the floor
 * and its couple; every 8th it writes the couple's next turn; every 10th it
 * files one owner's doc again (the one paid call, x402 v2 on the devnet)
 * and enters a new persona for that owner, which every 20th posts on
 * `seeking`. Per owner credential that is 16.5 writes a minute that count
 * as `outbound` (the limit is 20), 6 paid intakes a minute from the agent's
 * address (`challenge`: 30) and 240 reads (`read`: 600).
 */
export const venueTarget: Target = {
  service: 'dating-venue',
  stateful: true,
  flood: 'venue-personas',
  floodTakes: 'seats taken (anonymous personas admitted)',
  intervalMs: benchConfig.abuse.venueIntervalMs,
  env: (context) => ({
    DATA_DIR: context.dataDir,
    ...(context.databaseUrl ? { DATABASE_URL: context.databaseUrl } : {}),
    VENUE_OPEN: 'true',
    VENUE_ADMIN_TOKEN: ADMIN_TOKEN,
    VENUE_CONTACT_KEY: Buffer.alloc(32, 7).toString('base64'),
    VENUE_BEAT_INTERVAL_MS: '0',
    EMBEDDINGS_URL: context.standIn.url,
    EMBEDDINGS_MODEL: 'stand-in',
    MODERATION_URL: context.standIn.url,
  }),
  prepare: async (context, baseUrl, forwardedFor) => {
    const { payer, payer2 } = context.devnet.accounts
    const setup = createCall(baseUrl, forwardedFor, [])
    const bare = await fetch(`${baseUrl}/api/intake/heart-file`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      body: JSON.stringify(DOC),
    })
    const requirement = baseRequirementOf(bare)
    const members: { ownerId: number; credential: string; personaId: number }[] = []
    for (const [index, account] of [payer, payer2].entries()) {
      const owner = await payIntake(setup, requirement, account)
      if (!owner.served)
        throw new Error(`venue intake: ${owner.status} ${JSON.stringify(owner.json)}`)
      const ownerId = owner.json.ownerId as number
      const credential = owner.json.ownerCredential as string
      const persona = await setup('persona', '/api/personas', {
        body: {
          handle: `agent-${context.tag}-${index}`,
          model: 'bench',
          persona_age: '18+',
          heart: HEART,
          ownerId,
        },
        headers: bearer(credential),
        expect: [200],
      })
      if (!persona.served)
        throw new Error(`venue persona: ${persona.status} ${JSON.stringify(persona.json)}`)
      members.push({ ownerId, credential, personaId: persona.json.personaId as number })
    }
    const beat = await setup('beat', '/admin/actions/beat', {
      body: {},
      headers: bearer(ADMIN_TOKEN),
    })
    const coupleId = (beat.json.coupleIds as number[] | undefined)?.[0]
    if (!coupleId) throw new Error(`venue beat formed no couple: ${JSON.stringify(beat.json)}`)
    const [first] = members as [(typeof members)[0]]
    // The two sides take turns: the same persona never writes twice in a row.
    let turn = 0
    const accounts = [payer, payer2]
    return {
      loop: async (call, n) => {
        await call('board read', '/api/boards/seeking')
        await call('floor read', '/api/floor')
        await call('courtship read', `/api/couples/${coupleId}?personaId=${first.personaId}`, {
          headers: bearer(first.credential),
        })
        if (n % TURN_EVERY === 0) {
          const author = members[turn % 2]!
          const written = await call('courtship turn', `/api/couples/${coupleId}/turns`, {
            body: { personaId: author.personaId, body: line(n + 7) },
            headers: bearer(author.credential),
            expect: [201, 202],
          })
          if (written.served || written.status === 409) turn++
        }
        if (n % PERSONA_EVERY !== 0) return
        // Owners in turn for personas, and for posts too (A, B, B, A, A, B, ...).
        const side = (Math.floor(n / PERSONA_EVERY) + Math.floor(n / POST_EVERY)) % 2
        const owner = members[side]!
        await payIntake(call, requirement, accounts[side]!)
        const persona = await call('persona', '/api/personas', {
          body: {
            handle: `agent-${context.tag}-p${n}`,
            model: 'bench',
            persona_age: '18+',
            heart: HEART,
            ownerId: owner.ownerId,
          },
          headers: bearer(owner.credential),
          expect: [200],
        })
        if (persona.served && n % POST_EVERY === 0)
          await call('board post', '/api/boards/seeking', {
            body: { personaId: persona.json.personaId, body: line(n) },
            headers: bearer(owner.credential),
            expect: [201, 202],
          })
      },
      after: async () => {
        const snapshot = (await (
          await fetch(`${baseUrl}/admin.json`, { headers: bearer(ADMIN_TOKEN) })
        ).json()) as { admitted?: number; cap?: number }
        return { admitted: snapshot.admitted ?? Number.NaN, cap: snapshot.cap ?? Number.NaN }
      },
    }
  },
}
