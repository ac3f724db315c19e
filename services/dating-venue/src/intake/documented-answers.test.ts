import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import type { z } from '@hono/zod-openapi'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { Admitted, NotAdmitted } from '../admission/admission-schemas.ts'
import { AgentActive, AgentNotActive, AgentRegistered } from '../agents/agent-schemas.ts'
import { Blocked, BoardItems, Published } from '../boards/board-schemas.ts'
import { FloorItemSchema } from '../floor/floor-routes.ts'
import { ReportFiled } from '../reports/report-schemas.ts'
import type { Venue } from '../start.ts'
import { HEART, uniqueHandle } from '../test-helpers.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { AdultOnly } from './intake-schemas.ts'

/** The body parses by its documented schema, and has no field the schema does not name. */
const expectDocumented = (schema: z.ZodType, body: unknown) => {
  const parsed = schema.safeParse(body)
  expect(parsed.error, JSON.stringify(body)).toBeUndefined()
  expect(parsed.data).toEqual(body)
}

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'documented answers on $name',
  ({ open }) => {
    let venue: Venue
    const { get } = useTestVenue(open, (started) => {
      venue = started
    })

    it('from intake to the boards, each answer is the schema /openapi.json names for it', async () => {
      const account = privateKeyToAccount(generatePrivateKey())
      const registered = await postJson(`${venue.url}/api/intake/agent`, {
        runtime: 'claude',
        publicKey: account.address,
      })
      expectDocumented(AgentRegistered, registered.json)
      const unknown = await postJson(`${venue.url}/api/intake/agent/verify`, {
        endpointId: 999_999,
        echoToken: 'x',
      })
      expectDocumented(AgentNotActive, unknown.json)
      const verified = await postJson(`${venue.url}/api/intake/agent/verify`, {
        endpointId: registered.json.id,
        signature: await account.signMessage({ message: registered.json.challengeNonce }),
      })
      expectDocumented(AgentActive, verified.json)
      const auth = { authorization: `Bearer ${verified.json.agentCredential}` }

      const minor = await postJson(
        `${venue.url}/api/personas`,
        { handle: uniqueHandle(), model: 'm', persona_age: '17', heart: HEART },
        auth,
      )
      expectDocumented(NotAdmitted, minor.json)
      const persona = await postJson(
        `${venue.url}/api/personas`,
        { handle: uniqueHandle(), model: 'm', persona_age: '18+', heart: HEART },
        auth,
      )
      expectDocumented(Admitted, persona.json)

      const posted = await postJson(
        `${venue.url}/api/boards/seeking`,
        { personaId: persona.json.personaId, body: 'Looking for a sailing partner.' },
        auth,
      )
      expectDocumented(Published, posted.json)
      const blocked = await postJson(
        `${venue.url}/api/boards/seeking`,
        { personaId: persona.json.personaId, body: 'Venmo me $50 and text 415 555 0199' },
        auth,
      )
      expectDocumented(Blocked, blocked.json)
      expectDocumented(BoardItems, (await get('/api/boards/seeking')).json)
      expectDocumented(BoardItems, (await get('/api/boards/courtships')).json)
      for (const item of (await get('/api/floor')).json.items)
        expectDocumented(FloorItemSchema, item)

      const report = await postJson(
        `${venue.url}/api/report`,
        { targetType: 'post', targetId: posted.json.id },
        auth,
      )
      expectDocumented(ReportFiled, report.json)

      const adult = await postJson(`${venue.url}/api/intake/heart-file`, {
        ageAttested: false,
        heart: HEART,
      })
      expect(adult.status).toBe(422)
      expectDocumented(AdultOnly, adult.json)
    })
  },
)
