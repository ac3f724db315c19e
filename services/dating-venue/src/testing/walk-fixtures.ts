import { randomUUID } from 'node:crypto'
import { postJson } from '@agents/service-kit'
import type { Credential, Samples } from '@agents/service-kit/bad-input'
import { expect } from 'vitest'
import type { LocalIdp } from '../identity/testing/local-idp.ts'
import type { LocalIssuer } from '../identity/testing/local-issuer.ts'
import { signWebhookBody } from '../identity/webhook-signature.ts'
import type { Venue } from '../start.ts'
import { createAgent, createOwner, HEART, uniqueHandle } from '../test-helpers.ts'
import { TEST_ADMIN_TOKEN } from '../testing.ts'

export type WalkFixtures = Awaited<ReturnType<typeof walkFixtures>>

/**
 * What a walk over every route of `/openapi.json` needs so that its
 * requests get as far as the database: one owner with five admitted
 * personas, two of them in a couple (consented by the owner when
 * `consented`, so its invites and their claim links exist), an agent bound
 * to it, a persona to report, a second couple to withdraw, and the human
 * who claimed the owner (a login token of the local issuer).
 */
export const walkFixtures = async (
  venue: Venue,
  issuer: LocalIssuer,
  { prefix, consented = false }: { prefix: string; consented?: boolean },
) => {
  const owner = await createOwner(venue)
  const bearer = { authorization: `Bearer ${owner.credential}` }
  const persona = async () => {
    const answer = await postJson(
      `${venue.url}/api/personas`,
      {
        handle: uniqueHandle(prefix),
        model: 'm',
        persona_age: '18+',
        heart: HEART,
        ownerId: owner.ownerId,
      },
      bearer,
    )
    expect(answer.json.admitted).toBe(true)
    return answer.json.personaId as number
  }
  const [a, b, reported, c, d] = [
    await persona(),
    await persona(),
    await persona(),
    await persona(),
    await persona(),
  ]
  const agent = await createAgent(venue, {
    ownerCredential: owner.credential,
    ownerId: owner.ownerId,
  })
  const sql = (text: string, params: unknown[]) => venue.deps.database.client.query(text, params)
  const couple = (first: number, second: number) =>
    sql(`INSERT INTO couples (cycle_id, persona_a, persona_b) VALUES ($1, $2, $3) RETURNING id`, [
      prefix,
      first,
      second,
    ]).then((result) => (result.rows[0] as { id: number }).id)
  const human = `${prefix}-human-${randomUUID()}`
  await sql(`UPDATE owners SET human_subject = $1, tier = 'profile_claimed' WHERE id = $2`, [
    human,
    owner.ownerId,
  ])
  const coupleId = await couple(a, b)
  if (consented) {
    const consent = await postJson(
      `${venue.url}/api/couples/${coupleId}/intro-consent`,
      { ownerId: owner.ownerId },
      bearer,
    )
    expect(consent.status).toBe(200)
  }
  return {
    prefix,
    owner,
    personaId: a,
    reported,
    agent,
    coupleId,
    // Withdrawn by the walk; the first couple goes on to consent, invites and the broker.
    withdrawn: { id: await couple(c, d), personaId: c },
    loginToken: await issuer.sign({ sub: human }),
  }
}

/** Valid values by field and param name for every route of the venue's `/openapi.json`. */
export const walkSamples = (f: WalkFixtures): Samples => ({
  handle: () => uniqueHandle(f.prefix),
  model: 'walker-model',
  persona_age: '18+',
  heart: HEART,
  ownerId: f.owner.ownerId,
  personaId: f.personaId,
  endpointId: f.agent.endpointId,
  runtime: 'claude',
  publicKey: f.agent.account.address,
  callbackUrl: 'https://agent.example/callback',
  echoToken: 'not-the-nonce',
  targetType: 'persona',
  targetId: f.reported,
  reason: 'testing the report form',
  board: 'seeking',
  body: 'Anyone up for a slow Sunday sail?',
  id: f.coupleId,
  coupleId: f.coupleId,
  token: () => randomUUID(),
  authToken: f.loginToken,
  ageAttested: true,
  displayName: 'Walker',
  availableFor: 'online',
  contactRef: 'signal: walker',
  cycleId: () => `${f.prefix}-${randomUUID()}`,
  key: 'venue_open',
  value: 'true',
  webhook_type: 'status.updated',
  session_id: () => `${f.prefix}-session-${randomUUID()}`,
  status: 'In Review',
})

/** A valid credential for each security scheme the venue's document names (but the chat session). */
export const walkCredentials = (f: WalkFixtures, idp: LocalIdp): Record<string, Credential> => ({
  credential: { authorization: `Bearer ${f.owner.credential}` },
  login: { authorization: `Bearer ${f.loginToken}` },
  operator: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
  webhookSignature: ({ body }) => ({
    'x-signature': signWebhookBody(body ?? '', idp.webhookSecret),
    'x-timestamp': String(Math.floor(Date.now() / 1000)),
  }),
})
