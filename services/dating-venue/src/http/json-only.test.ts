import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLocalIdp, type LocalIdp } from '../identity/testing/local-idp.ts'
import { signWebhookBody } from '../identity/webhook-signature.ts'
import type { Venue } from '../start.ts'
import { createAgent, createOwner, HEART, uniqueHandle } from '../test-helpers.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from '../testing.ts'

const operator = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

/** Content types that are not JSON, and a body sent with none. */
const NOT_JSON: Array<string | undefined> = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/jsonp',
  undefined,
]

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'JSON routes refuse other media types on $name',
  ({ open }) => {
    let venue: Venue
    let idp: LocalIdp
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      idp = await createLocalIdp()
      venue = await startTestVenue({
        databaseUrl: database.url,
        env: {
          IDP_BASE_URL: idp.url,
          IDP_API_KEY: idp.apiKey,
          IDP_WORKFLOW_ID: 'wf-18-plus',
          IDP_WEBHOOK_SECRET: idp.webhookSecret,
        },
      })
    }, 60_000)
    afterAll(async () => {
      await venue?.close()
      await idp?.close()
      await drop?.()
    })

    const query = async (text: string, params: unknown[] = []) =>
      (await venue.deps.database.client.query(text, params)).rows as Array<Record<string, unknown>>

    /**
     * Every row of every table of the venue's schema, hashed per table; not
     * the request limits' counters (on PostgreSQL), which count refused
     * requests too, by design.
     */
    const snapshot = async () => {
      const tables = await query(
        `SELECT table_name AS name FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            AND table_name <> 'rate_limits' ORDER BY table_name`,
      )
      const hashes: Record<string, unknown> = {}
      for (const { name } of tables)
        hashes[name as string] = (
          await query(
            `SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS h FROM "${name}" t`,
          )
        )[0]
      return hashes
    }
    /** The snapshot once background work (embeddings after admission) has settled. */
    const settled = async () => {
      let last = await snapshot()
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 200))
        const next = await snapshot()
        if (JSON.stringify(next) === JSON.stringify(last)) return next
        last = next
      }
    }

    /** An owner with two admitted personas in a couple, its agent, and a body for each route. */
    const fixtures = async () => {
      const owner = await createOwner(venue)
      const bearer = { authorization: `Bearer ${owner.credential}` }
      const persona = async () => {
        const answer = await postJson(
          `${venue.url}/api/personas`,
          {
            handle: uniqueHandle('json'),
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
      const [a, b] = [await persona(), await persona()]
      const agent = await createAgent(venue, {
        ownerCredential: owner.credential,
        ownerId: owner.ownerId,
      })
      const [couple] = await query(
        `INSERT INTO couples (cycle_id, persona_a, persona_b) VALUES ('json-only', $1, $2) RETURNING id`,
        [a, b],
      )
      const coupleId = couple!.id as number
      // A body each route would act on if it came as JSON.
      const bodies: Record<string, unknown> = {
        'POST /api/intake/heart-file': { heart: HEART, ageAttested: true },
        'POST /api/intake/agent': { runtime: 'claude', publicKey: agent.account.address },
        'POST /api/intake/agent/verify': { endpointId: agent.endpointId, echoToken: 'x' },
        'POST /api/personas': {
          handle: uniqueHandle('json'),
          model: 'm',
          persona_age: '18+',
          heart: HEART,
        },
        'POST /api/report': { targetType: 'persona', targetId: a, reason: 'testing' },
        'POST /api/boards/{board}': { personaId: a, body: 'Anyone up for a slow sail?' },
        'POST /api/couples/{id}/turns': { personaId: a, body: 'Hello there.' },
        'POST /api/couples/{id}/withdraw': { personaId: a },
        'POST /admin/actions/beat': {},
        'POST /admin/actions/settings': { key: 'cap', value: 3 },
        'POST /api/couples/{id}/intro-consent': { ownerId: owner.ownerId },
        'POST /api/escalations/claim': {
          token: '00000000-0000-0000-0000-000000000000',
          authToken: 'not-a-login-token',
        },
        'POST /api/identity/session': { ownerId: owner.ownerId },
        'POST /admin/actions/broker': { coupleId },
        'POST /api/premium/compatibility-report': { ownerId: owner.ownerId },
        'POST /api/featured/post': { personaId: a, board: 'seeking', body: 'Featured sail.' },
        'POST /api/chat/session': { message: 'x', signature: `0x${'1'.repeat(130)}` },
        'POST /api/chat/attest': { adult: true },
        'POST /api/chat/draft': { answer: 'I sail.' },
        'POST /api/chat/ask': { message: 'Hello matchmaker.' },
        'POST /api/chat/submit-doc': { handle: uniqueHandle('json') },
        'POST /api/chat/topup': {},
        'POST /api/chat/session/end': {},
        'POST /api/operator/session/end': {},
        'POST /api/operator/session': { message: 'x', signature: `0x${'1'.repeat(130)}` },
        'POST /admin/actions/moderate': { targetType: 'persona', targetId: a, decision: 'approve' },
        'POST /admin/actions/credit': { orderId: 'doc_submit:json-only' },
        'POST /admin/actions/review': { personaId: a, decision: 'reject' },
      }
      // The chat routes act for a signed-in wallet: its session cookie, not a bearer.
      const chat = { cookie: (await signInToChat(venue.url)).cookie }
      return { owner, bearer, chat, coupleId, bodies }
    }

    const send = (
      path: string,
      body: string,
      contentType: string | undefined,
      headers: Record<string, string> = {},
    ) =>
      fetch(`${venue.url}${path}`, {
        method: 'POST',
        headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers },
        // Bytes, so that fetch adds no Content-Type of its own.
        body: new TextEncoder().encode(body),
      })

    it('every documented route with a JSON body answers 415 to any other type, and changes nothing', async () => {
      const f = await fixtures()
      const document = await (await fetch(`${venue.url}/openapi.json`)).json()
      const routes = Object.entries<Record<string, { requestBody?: { content: object } }>>(
        document.paths,
      ).flatMap(([path, operations]) =>
        Object.entries(operations)
          .filter(([, operation]) => operation.requestBody)
          .map(([method, operation]) => ({
            method: method.toUpperCase(),
            path,
            types: Object.keys(operation.requestBody!.content),
          })),
      )
      const webhook = '/api/identity/webhook/idp'
      // MCP answers in JSON-RPC, as its transport defines (its own tests cover it).
      const checked = routes.filter((route) => route.path !== webhook && route.path !== '/mcp')
      // The escalation and operator routes that read their bodies by hand are among them.
      expect(checked.map((route) => `${route.method} ${route.path}`)).toEqual(
        expect.arrayContaining([
          'POST /admin/actions/beat',
          'POST /admin/actions/settings',
          'POST /admin/actions/broker',
          'POST /api/couples/{id}/intro-consent',
          'POST /api/escalations/claim',
          'POST /api/identity/session',
        ]),
      )
      const before = await settled()
      for (const route of checked) {
        expect(route.types).toEqual(['application/json'])
        const key = `${route.method} ${route.path}`
        expect(f.bodies, `a body for ${key}`).toHaveProperty([key])
        const path = route.path
          .replace('{board}', 'seeking')
          .replace(/\{(id|coupleId)\}/, String(f.coupleId))
        const headers = path.startsWith('/admin')
          ? operator
          : path.startsWith('/api/chat/')
            ? f.chat
            : f.bearer
        for (const type of NOT_JSON) {
          const response = await send(path, JSON.stringify(f.bodies[key]), type, headers)
          expect(response.status, `${key} as ${type}`).toBe(415)
          expect(await response.json()).toEqual({ error: 'Unsupported Media Type' })
        }
      }
      expect(await snapshot()).toEqual(before)

      // The same bodies as JSON do act: the refusal was the media type's.
      const json = (path: string, body: unknown, headers: Record<string, string>) =>
        postJson(`${venue.url}${path}`, body, headers)
      expect(
        await json('/admin/actions/settings', f.bodies['POST /admin/actions/settings'], operator),
      ).toMatchObject({ status: 200, json: { key: 'cap', value: '3' } })
      expect(
        await json(
          `/api/couples/${f.coupleId}/intro-consent`,
          f.bodies['POST /api/couples/{id}/intro-consent'],
          f.bearer,
        ),
      ).toMatchObject({ status: 200, json: { consented: true } })
      expect((await json('/admin/actions/beat', {}, operator)).status).toBe(200)
      expect(await snapshot()).not.toEqual(before)
    })

    it('an operator POST with no body and no type still runs (the beat starts a fresh cycle)', async () => {
      const response = await fetch(`${venue.url}/admin/actions/beat`, {
        method: 'POST',
        headers: operator,
      })
      expect(response.status).toBe(200)
      expect(await response.json()).toHaveProperty('cycleId')
      const withType = await fetch(`${venue.url}/admin/actions/beat`, {
        method: 'POST',
        headers: { ...operator, 'content-type': 'text/plain' },
      })
      expect(withType.status).toBe(415)
    })

    it('the tool server (not in /openapi.json) answers 415 to other types with its own JSON-RPC error', async () => {
      const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      const accept = { accept: 'application/json, text/event-stream' }
      for (const type of NOT_JSON)
        expect((await send('/mcp', call, type, accept)).status, String(type)).toBe(415)
      expect((await send('/mcp', call, 'application/json', accept)).status).toBe(200)
    })

    it('+json types and parameters are JSON', async () => {
      for (const type of ['application/json; charset=utf-8', 'application/merge-patch+json']) {
        const response = await send(
          '/admin/actions/settings',
          JSON.stringify({ key: 'venue_open', value: true }),
          type,
          operator,
        )
        expect(response.status, type).toBe(200)
      }
    })

    it('the identity webhook verifies the raw body first, then refuses a signed body that is not JSON', async () => {
      const body = JSON.stringify({
        webhook_type: 'status.updated',
        session_id: 'no-such-session',
        status: 'Approved',
      })
      const signed = (timestamp = Math.floor(Date.now() / 1000)) => ({
        'x-signature': signWebhookBody(new TextEncoder().encode(body), idp.webhookSecret),
        'x-timestamp': String(timestamp),
      })
      const webhook = '/api/identity/webhook/idp'
      const before = await settled()
      // Unsigned: the signature decides before anything else is said.
      const unsigned = await send(webhook, body, 'text/plain')
      expect(unsigned.status).toBe(400)
      expect(await unsigned.json()).toMatchObject({ error: 'webhook rejected' })
      for (const type of NOT_JSON) {
        const response = await send(webhook, body, type, signed())
        expect(response.status, String(type)).toBe(415)
        expect(await response.json()).toEqual({ error: 'Unsupported Media Type' })
      }
      expect(await snapshot()).toEqual(before)
      const accepted = await send(webhook, body, 'application/json', signed())
      expect(accepted.status).toBe(200)
      expect(await accepted.json()).toMatchObject({ ok: true })
    })
  },
)
