import { walkAnswerHeaders, walkBadInput, walkDeepInput } from '@agents/service-kit/bad-input'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readConfig } from './config.ts'
import { createLocalIdp, type LocalIdp } from './identity/testing/local-idp.ts'
import { createLocalIssuer, type LocalIssuer } from './identity/testing/local-issuer.ts'
import { signWebhookBody } from './identity/webhook-signature.ts'
import type { Venue } from './start.ts'
import { type ChatStandIn, startChatStandIn } from './testing/chat-stand-in.ts'
import { walkCredentials, walkFixtures, walkSamples } from './testing/walk-fixtures.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from './testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'bad input on every route of /openapi.json on $name',
  ({ name, open }) => {
    // The depth limit and the headers are the edge's, before any query: once is enough.
    const atTheEdge = it.runIf(name === 'PGlite')
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

    const fixtures = () => walkFixtures(venue, issuer, { prefix: 'walk' })

    it('U+0000 in any string and ids outside int4 never get a 5xx, and errors are JSON with error', async () => {
      const f = await fixtures()
      const { operations, failures, requests, baseStatuses } = await walkBadInput({
        runsPerPosition: 10,
        baseUrl: venue.url,
        // MCP answers in JSON-RPC, as its transport defines (mcp-errors.test.ts covers its errors);
        // the console page takes no input and answers its 401 as the sign-in page (console.test.ts).
        skip: (operation) => operation.path === '/mcp' || operation.path === '/admin',
        samples: walkSamples(f),
        operationSamples: { 'POST /api/couples/{id}/withdraw': f.withdrawn },
        credentials: walkCredentials(f, idp),
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

    atTheEdge(
      'JSON nested 10,000 and 100,000 levels deep is refused with 400 on every route and MCP tool, large bodies get no 5xx, and the process keeps serving',
      async () => {
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
      },
      120_000,
    )

    atTheEdge(
      'every answer, of every route, page and error, carries nosniff, DENY framing, no referrer and a policy; pages run only their nonce',
      async () => {
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
      },
      60_000,
    )
  },
)
