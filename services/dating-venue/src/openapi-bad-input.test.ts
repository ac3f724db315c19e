import { randomUUID } from 'node:crypto'
import { postJson } from '@agents/service-kit'
import { walkAnswerHeaders, walkBadInput, walkDeepInput } from '@agents/service-kit/bad-input'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readConfig } from './config.ts'
import {
  createLocalIdp,
  createLocalIssuer,
  type LocalIdp,
  type LocalIssuer,
  signWebhookBody,
} from './identity/testing/index.ts'
import type { Venue } from './start.ts'
import { createAgent, createOwner, HEART, uniqueHandle } from './test-helpers.ts'
import { type ChatStandIn, startChatStandIn } from './testing/chat-stand-in.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from './testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'bad input on every route of /openapi.json on $name',
  ({ open }) => {
    let venue: Venue
    let issuer: LocalIssuer
    let chat: ChatStandIn
    let idp: LocalIdp
    let drop: () => Promise<void>

    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      chat = await startChatStandIn()
      issuer = await createLocalIssuer()
      idp = await createLocalIdp()
      venue = await startTestVenue({
        databaseUrl: database.url,
        env: {
          VENUE_LOGIN_ISSUERS: JSON.stringify([issuer.trustedIssuer()]),
          VENUE_LOGIN_URL: issuer.loginUrl,
          IDP_BASE_URL: idp.url,
          IDP_API_KEY: idp.apiKey,
          IDP_WORKFLOW_ID: 'wf-18-plus',
          IDP_WEBHOOK_SECRET: idp.webhookSecret,
          // A model that answers, so the matchmaker's paid routes reach their 402.
          MATCHMAKER_CHAT_URL: chat.url,
        },
      })
    }, 60_000)
    afterAll(async () => {
      await venue?.close()
      await chat?.close()
      await issuer?.close()
      await idp?.close()
      await drop?.()
    })

    /**
     * One owner with two admitted personas courting each other, an agent
     * bound to it, a third persona to report, and the human who claimed the
     * owner: valid values for every id a route takes, so that requests get
     * as far as the database.
     */
    const fixtures = async () => {
      const owner = await createOwner(venue)
      const bearer = { authorization: `Bearer ${owner.credential}` }
      const persona = async () => {
        const answer = await postJson(
          `${venue.url}/api/personas`,
          {
            handle: uniqueHandle('walk'),
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
      const sql = (text: string, params: unknown[]) =>
        venue.deps.database.client.query(text, params)
      const couple = (first: number, second: number) =>
        sql(
          `INSERT INTO couples (cycle_id, persona_a, persona_b) VALUES ('walk', $1, $2) RETURNING id`,
          [first, second],
        ).then((result) => (result.rows[0] as { id: number }).id)
      const human = `walk-human-${randomUUID()}`
      await sql(`UPDATE owners SET human_subject = $1, tier = 'profile_claimed' WHERE id = $2`, [
        human,
        owner.ownerId,
      ])
      return {
        owner,
        personaId: a,
        reported,
        agent,
        coupleId: await couple(a, b),
        // Withdrawn by the walk; the first couple goes on to consent, invites and the broker.
        withdrawn: { id: await couple(c, d), personaId: c },
        loginToken: await issuer.sign({ sub: human }),
      }
    }

    it('U+0000 in any string and ids outside int4 never get a 5xx, and errors are JSON with error', async () => {
      const f = await fixtures()
      const { operations, failures, requests, baseStatuses } = await walkBadInput({
        runsPerPosition: 10,
        baseUrl: venue.url,
        // MCP answers in JSON-RPC, as its transport defines (mcp-errors.test.ts covers its errors);
        // the console page takes no input and answers its 401 as the sign-in page (console.test.ts).
        skip: (operation) => operation.path === '/mcp' || operation.path === '/admin',
        samples: {
          handle: () => uniqueHandle('walk'),
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
          cycleId: () => `walk-${randomUUID()}`,
          key: 'venue_open',
          value: 'true',
          webhook_type: 'status.updated',
          session_id: () => `walk-session-${randomUUID()}`,
          status: 'In Review',
        },
        operationSamples: { 'POST /api/couples/{id}/withdraw': f.withdrawn },
        credentials: {
          credential: { authorization: `Bearer ${f.owner.credential}` },
          login: { authorization: `Bearer ${f.loginToken}` },
          operator: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
          webhookSignature: ({ body }) => ({
            'x-signature': signWebhookBody(body ?? '', idp.webhookSecret),
            'x-timestamp': String(Math.floor(Date.now() / 1000)),
          }),
        },
      })
      expect(operations).toEqual(
        expect.arrayContaining([
          'POST /api/personas',
          'GET /api/boards/{board}',
          'POST /api/identity/session',
          'POST /admin/actions/broker',
        ]),
      )
      expect(failures).toEqual([])
      // The valid requests get to the database, so the bad ones are tested where they used to fail.
      expect(baseStatuses).toMatchObject({
        'POST /api/personas [credential]': 200,
        'POST /api/report [credential]': 200,
        'POST /api/boards/{board} [credential]': 201,
        'POST /api/couples/{id}/turns [credential]': 201,
        'POST /api/intake/agent [credential]': 200,
        'POST /api/couples/{id}/intro-consent [credential]': 200,
        'POST /api/identity/session [login]': 200,
        'POST /api/identity/webhook/idp [webhookSignature]': 200,
        'POST /admin/actions/broker [operator]': 200,
      })
      expect(requests).toBeGreaterThan(500)
    }, 120_000)

    it('JSON nested 10,000 and 100,000 levels deep is refused with 400 on every route and MCP tool, large bodies get no 5xx, and the process keeps serving', async () => {
      const f = await fixtures()
      const { targets, failures } = await walkDeepInput({
        baseUrl: venue.url,
        maxBodyBytes: readConfig({}).MAX_BODY_BYTES,
        samples: {
          ownerId: f.owner.ownerId,
          id: f.coupleId,
          coupleId: f.coupleId,
          board: 'seeking',
        },
        credentials: {
          credential: { authorization: `Bearer ${f.owner.credential}` },
          webhookSignature: ({ body }) => ({
            'x-signature': signWebhookBody(body ?? '', idp.webhookSecret),
            'x-timestamp': String(Math.floor(Date.now() / 1000)),
          }),
        },
      })
      expect(targets).toEqual(
        expect.arrayContaining(['POST /api/personas', 'POST /api/identity/webhook/idp']),
      )
      expect(targets).toEqual(expect.arrayContaining(['MCP get_stats', 'MCP get_courtships']))
      expect(failures).toEqual([])
    }, 120_000)

    it('every answer, of every route, page and error, carries nosniff, DENY framing, no referrer and a policy; pages run only their nonce', async () => {
      const f = await fixtures()
      const { answers, pages, failures } = await walkAnswerHeaders({
        baseUrl: venue.url,
        samples: {
          ownerId: f.owner.ownerId,
          id: f.coupleId,
          coupleId: f.coupleId,
          board: 'seeking',
        },
        pages: ['/claim?token=not-a-token'],
      })
      expect(answers.length).toBeGreaterThan(50)
      // The home page, the chat page, the console and the claim page (twice) at least.
      expect(pages).toBeGreaterThanOrEqual(4)
      expect(failures).toEqual([])
    }, 60_000)
  },
)
