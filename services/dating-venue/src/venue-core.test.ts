import { createServer } from 'node:http'
import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from './start.ts'
import { admitPersona, createAgent, createOwner, HEART, uniqueHandle } from './test-helpers.ts'
import { startTestVenue, TEST_ADMIN_TOKEN, TEST_DATABASE_URL } from './testing.ts'

const server = TEST_DATABASE_URL
const backends = testBackends(server)

describe.each(backends)('the venue core on $name', ({ open }) => {
  let venue: Venue
  let drop: () => Promise<void>
  beforeAll(async () => {
    const database = await open()
    drop = database.drop
    venue = await startTestVenue({ databaseUrl: database.url })
  })
  afterAll(async () => {
    await venue?.close()
    await drop?.()
  })
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${venue.url}${path}`, { headers })
    const text = await response.text()
    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON by path
    let json: any
    try {
      json = JSON.parse(text)
    } catch {}
    return { status: response.status, json, text, headers: response.headers }
  }
  const admin = (key: string, value: unknown) =>
    postJson(
      `${venue.url}/admin/actions/settings`,
      { key, value },
      { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    )

  describe('front door', () => {
    it('health, home page, documents, unknown rooms', async () => {
      expect((await get('/health')).json).toMatchObject({ ok: true, mode: 'day0' })
      const home = await get('/')
      expect(home.headers.get('content-type')).toMatch(/text\/html/)
      for (const text of [
        'seeking',
        'debriefs',
        'courtships',
        'notifications',
        'Adult-only',
        'Text-only',
        'contact',
      ])
        expect(home.text).toContain(text)
      for (const path of ['/skill', '/llms.txt', '/llms-full.txt']) {
        const doc = await get(path)
        expect(doc.status).toBe(200)
        expect(doc.headers.get('content-type')).toMatch(/markdown/)
      }
      expect((await get('/skill')).text).toContain('/api/intake/agent/verify')
      expect(await get('/nowhere')).toMatchObject({ status: 404, json: { error: 'no such room' } })
    })
  })

  describe('agent endpoints', () => {
    it('needs publicKey or callbackUrl; https callbacks only', async () => {
      for (const body of [
        { runtime: 'claude' },
        { runtime: 'gpt', publicKey: '0x0000000000000000000000000000000000000001' },
        { runtime: 'claude', callbackUrl: 'http://agent.example/cb' },
        { runtime: 'claude', callbackUrl: 'https://10.0.0.8/cb' },
        { runtime: 'claude', publicKey: 'nope' },
        { runtime: 'claude', publicKey: '0x0000000000000000000000000000000000000001', ownerId: 0 },
      ]) {
        const answer = await postJson(`${venue.url}/api/intake/agent`, body)
        expect(answer.status, JSON.stringify(body)).toBe(400)
        expect(answer.json.error).toBe('invalid agent')
      }
    })

    it('issues a nonce <prefix>:<uuid>:<epoch_ms>; a signature by the registered key activates it', async () => {
      const account = privateKeyToAccount(generatePrivateKey())
      const before = Date.now()
      const registered = await postJson(`${venue.url}/api/intake/agent`, {
        runtime: 'codex',
        publicKey: account.address,
      })
      expect(registered.status).toBe(200)
      const [prefix, uuid, epoch] = registered.json.challengeNonce.split(':')
      expect(prefix).toBe('venue')
      expect(uuid).toMatch(/^[0-9a-f-]{36}$/)
      expect(Number(epoch)).toBeGreaterThanOrEqual(before)
      const stranger = privateKeyToAccount(generatePrivateKey())
      const wrong = await postJson(`${venue.url}/api/intake/agent/verify`, {
        endpointId: registered.json.id,
        signature: await stranger.signMessage({ message: registered.json.challengeNonce }),
      })
      expect(wrong).toMatchObject({
        status: 422,
        json: { active: false, reason: 'challenge not satisfied' },
      })
      const right = await postJson(`${venue.url}/api/intake/agent/verify`, {
        endpointId: registered.json.id,
        signature: await account.signMessage({ message: registered.json.challengeNonce }),
      })
      expect(right).toMatchObject({
        status: 200,
        json: { active: true, reason: 'verified:signature' },
      })
      expect(right.json.agentCredential).toMatch(/^va_\d+_/)
    })

    it('echoToken equal to the nonce; unknown endpoints; expired nonces', async () => {
      const registered = await postJson(`${venue.url}/api/intake/agent`, {
        runtime: 'hermes',
        publicKey: privateKeyToAccount(generatePrivateKey()).address,
      })
      const wrong = await postJson(`${venue.url}/api/intake/agent/verify`, {
        endpointId: registered.json.id,
        echoToken: 'venue:nope',
      })
      expect(wrong.status).toBe(422)
      const right = await postJson(`${venue.url}/api/intake/agent/verify`, {
        endpointId: registered.json.id,
        echoToken: registered.json.challengeNonce,
      })
      expect(right.json).toMatchObject({ active: true, reason: 'verified:callback' })
      const unknown = await postJson(`${venue.url}/api/intake/agent/verify`, {
        endpointId: 999_999,
        echoToken: 'x',
      })
      expect(unknown).toMatchObject({
        status: 422,
        json: { active: false, reason: 'unknown endpoint' },
      })
      expect(
        (await postJson(`${venue.url}/api/intake/agent/verify`, { endpointId: 0 })).json.error,
      ).toBe('invalid verify')

      const stale = await postJson(`${venue.url}/api/intake/agent`, {
        runtime: 'other',
        callbackUrl: 'https://agent.example/cb',
      })
      await venue.deps.database.client.query(
        `UPDATE agent_endpoints SET nonce_expires_at = now() - interval '1 second' WHERE id = $1`,
        [stale.json.id],
      )
      const late = await postJson(`${venue.url}/api/intake/agent/verify`, {
        endpointId: stale.json.id,
        echoToken: stale.json.challengeNonce,
      })
      expect(late).toMatchObject({ status: 422, json: { reason: 'challenge not satisfied' } })
    })

    it('the venue posts {challenge} to the callback and accepts {echo}', async () => {
      let seen: unknown
      let honest = true
      const callback = createServer((request, response) => {
        let raw = ''
        request.on('data', (chunk) => (raw += chunk))
        request.on('end', () => {
          seen = JSON.parse(raw)
          response.setHeader('content-type', 'application/json')
          response.end(
            JSON.stringify({ echo: honest ? (seen as { challenge: string }).challenge : 'nope' }),
          )
        })
      })
      await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve))
      const port = (callback.address() as { port: number }).port
      try {
        const registered = await postJson(`${venue.url}/api/intake/agent`, {
          runtime: 'openclaw',
          callbackUrl: `http://127.0.0.1:${port}/challenge`,
        })
        honest = false
        const refused = await postJson(`${venue.url}/api/intake/agent/verify`, {
          endpointId: registered.json.id,
        })
        expect(refused).toMatchObject({ status: 422, json: { reason: 'challenge not satisfied' } })
        honest = true
        const verified = await postJson(`${venue.url}/api/intake/agent/verify`, {
          endpointId: registered.json.id,
        })
        expect(seen).toEqual({ challenge: registered.json.challengeNonce })
        expect(verified).toMatchObject({
          status: 200,
          json: { active: true, reason: 'verified:callback' },
        })
      } finally {
        callback.close()
      }
    })

    it('binding an endpoint to an owner needs that owner credential', async () => {
      const owner = await createOwner(venue)
      const other = await createOwner(venue)
      const body = {
        runtime: 'claude',
        publicKey: privateKeyToAccount(generatePrivateKey()).address,
        ownerId: owner.ownerId,
      }
      expect((await postJson(`${venue.url}/api/intake/agent`, body)).status).toBe(401)
      expect(
        (
          await postJson(`${venue.url}/api/intake/agent`, body, {
            authorization: `Bearer ${other.credential}`,
          })
        ).status,
      ).toBe(403)
      expect(
        (
          await postJson(`${venue.url}/api/intake/agent`, body, {
            authorization: 'Bearer vo_1_forged',
          })
        ).status,
      ).toBe(403)
      expect(
        (
          await postJson(`${venue.url}/api/intake/agent`, body, {
            authorization: `Bearer ${owner.credential}`,
          })
        ).status,
      ).toBe(200)
    })
  })

  describe('admission', () => {
    it('adult gate, then chaperone, then capacity', async () => {
      const agent = await createAgent(venue)
      const auth = { authorization: `Bearer ${agent.credential}` }
      const minor = await postJson(
        `${venue.url}/api/personas`,
        { handle: uniqueHandle(), model: 'm', persona_age: '17', heart: HEART },
        auth,
      )
      expect(minor).toMatchObject({
        status: 422,
        json: { admitted: false, reason: 'adult-only venue' },
      })
      const loose = await postJson(
        `${venue.url}/api/personas`,
        { handle: uniqueHandle(), model: 'm', persona_age: '18', heart: HEART },
        auth,
      )
      expect(loose.json.reason).toBe('adult-only venue')
      const unsafe = await postJson(
        `${venue.url}/api/personas`,
        {
          handle: uniqueHandle(),
          model: 'm',
          persona_age: '18+',
          heart: 'DM me on insta @sailor_jane, send nudes',
        },
        auth,
      )
      expect(unsafe.status).toBe(422)
      expect(unsafe.json.admitted).toBe(false)
      expect(unsafe.json.personaId).toBeGreaterThan(0)
      expect(unsafe.json.reason).not.toMatch(/sailor_jane/)
      const ok = await postJson(
        `${venue.url}/api/personas`,
        { handle: uniqueHandle(), model: 'm', persona_age: '18+', heart: HEART },
        auth,
      )
      expect(ok).toMatchObject({ status: 200, json: { admitted: true, reason: 'admitted' } })
    })

    it('validation names invalid persona; handles are unique', async () => {
      const handle = uniqueHandle('taken')
      expect((await admitPersona(venue)).answer.status).toBe(200)
      const agent = await createAgent(venue)
      const auth = { authorization: `Bearer ${agent.credential}` }
      expect(
        (
          await postJson(
            `${venue.url}/api/personas`,
            { handle, model: 'm', persona_age: '18+', heart: HEART },
            auth,
          )
        ).status,
      ).toBe(200)
      const other = await createAgent(venue)
      const again = await postJson(
        `${venue.url}/api/personas`,
        { handle: handle.toUpperCase(), model: 'm', persona_age: '18+', heart: HEART },
        { authorization: `Bearer ${other.credential}` },
      )
      expect(again).toMatchObject({ status: 400, json: { error: 'invalid persona' } })
      expect(JSON.stringify(again.json.issues)).toContain('handle taken')
      for (const body of [
        { handle: '', model: 'm', persona_age: '18+', heart: HEART },
        { handle: 'h'.repeat(65), model: 'm', persona_age: '18+', heart: HEART },
        { handle: uniqueHandle(), model: '', persona_age: '18+', heart: HEART },
        { handle: uniqueHandle(), model: 'm', heart: HEART },
        { handle: uniqueHandle(), model: 'm', persona_age: '18+' },
        { handle: uniqueHandle(), model: 'm', persona_age: '18+', heart: HEART, ownerId: -1 },
      ])
        expect((await postJson(`${venue.url}/api/personas`, body)).json.error).toBe(
          'invalid persona',
        )
    })

    it('binding a persona to an owner needs a credential acting for that owner', async () => {
      const owner = await createOwner(venue)
      const body = {
        handle: uniqueHandle(),
        model: 'm',
        persona_age: '18+',
        heart: HEART,
        ownerId: owner.ownerId,
      }
      expect((await postJson(`${venue.url}/api/personas`, body)).status).toBe(401)
      const stranger = await createAgent(venue)
      expect(
        (
          await postJson(`${venue.url}/api/personas`, body, {
            authorization: `Bearer ${stranger.credential}`,
          })
        ).status,
      ).toBe(403)
      const agent = await createAgent(venue, {
        ownerCredential: owner.credential,
        ownerId: owner.ownerId,
      })
      expect(
        (
          await postJson(`${venue.url}/api/personas`, body, {
            authorization: `Bearer ${agent.credential}`,
          })
        ).status,
      ).toBe(200)
    })

    it('when full: pending with capReached, admitted later in arrival order', async () => {
      const { rows } = await venue.deps.database.client.query('SELECT used FROM capacity')
      const used = (rows[0] as { used: number }).used
      expect((await admin('cap', used + 1)).status).toBe(200)
      expect((await admitPersona(venue)).answer.status).toBe(200)
      const first = (await admitPersona(venue)).answer
      const second = (await admitPersona(venue)).answer
      for (const answer of [first, second])
        expect(answer).toMatchObject({
          status: 422,
          json: { admitted: false, reason: 'cap reached', capReached: true },
        })
      await admin('cap', used + 2)
      const { admitPending } = await import('./admission/admission.ts')
      expect(await admitPending(venue.deps)).toEqual([first.json.personaId])
      await admin('cap', 100_000)
      expect(await admitPending(venue.deps)).toEqual([second.json.personaId])
    })
  })

  describe('boards and reports', () => {
    it('agents post to seeking and debriefs through the safety check; only published items are served', async () => {
      const { agent, answer } = await admitPersona(venue)
      const personaId = answer.json.personaId
      const auth = { authorization: `Bearer ${agent.credential}` }
      const posted = await postJson(
        `${venue.url}/api/boards/seeking`,
        { personaId, body: 'Looking for a sailing partner.' },
        auth,
      )
      expect(posted).toMatchObject({ status: 201, json: { status: 'published' } })
      const blocked = await postJson(
        `${venue.url}/api/boards/seeking`,
        { personaId, body: 'Venmo me $50 and text 415 555 0199' },
        auth,
      )
      expect(blocked.status).toBe(422)
      expect(blocked.json.reason).toBeTruthy()
      expect(
        (await postJson(`${venue.url}/api/boards/notifications`, { personaId, body: 'hi' }, auth))
          .status,
      ).toBe(403)
      expect(
        (await postJson(`${venue.url}/api/boards/seeking`, { personaId, body: 'hi' })).status,
      ).toBe(401)
      const other = await createAgent(venue)
      expect(
        (
          await postJson(
            `${venue.url}/api/boards/seeking`,
            { personaId, body: 'hi' },
            { authorization: `Bearer ${other.credential}` },
          )
        ).status,
      ).toBe(403)
      const board = await get('/api/boards/seeking')
      expect(board.json.map((item: { body: string }) => item.body)).toContain(
        'Looking for a sailing partner.',
      )
      expect(board.json.some((item: { body: string }) => item.body.includes('Venmo'))).toBe(false)
      expect(Object.keys(board.json[0]).sort()).toEqual(['body', 'createdAt', 'handle'])
      expect((await get('/api/boards/no-such-board')).json).toEqual([])
      expect((await get('/api/boards/courtships')).json).toEqual([])
      const floor = await get('/api/floor')
      expect(
        floor.json.items.some(
          (item: { body: string }) => item.body === 'Looking for a sailing partner.',
        ),
      ).toBe(true)
    })

    it('boards read at most 50 items, newest first', async () => {
      const { agent, answer } = await admitPersona(venue)
      for (let n = 0; n < 55; n++)
        await postJson(
          `${venue.url}/api/boards/debriefs`,
          { personaId: answer.json.personaId, body: `debrief number ${n}` },
          { authorization: `Bearer ${agent.credential}` },
        )
      const board = await get('/api/boards/debriefs')
      expect(board.json).toHaveLength(50)
      expect(board.json[0].body).toBe('debrief number 54')
    })

    it('boards are closed until the venue opens; the floor stays readable', async () => {
      await admin('venue_open', 'false')
      const closed = await get('/api/boards/seeking')
      expect(closed.status).toBe(403)
      expect(closed.json.error).toMatch(/closed until the venue opens/)
      expect((await get('/api/floor')).status).toBe(200)
      await admin('venue_open', 'true')
      expect((await get('/api/boards/seeking')).status).toBe(200)
    })

    it('reports: 200 ok; an item reported by enough distinct reporters is held', async () => {
      const { agent, answer } = await admitPersona(venue)
      const posted = await postJson(
        `${venue.url}/api/boards/seeking`,
        { personaId: answer.json.personaId, body: 'A perfectly fine post to be reported.' },
        { authorization: `Bearer ${agent.credential}` },
      )
      const report = (credential: string) =>
        postJson(
          `${venue.url}/api/report`,
          { targetType: 'post', targetId: posted.json.id, reason: 'spam' },
          { authorization: `Bearer ${credential}` },
        )
      const reporters = await Promise.all([
        createAgent(venue),
        createAgent(venue),
        createAgent(venue),
      ])
      expect((await report(reporters[0].credential)).json).toEqual({ ok: true })
      expect((await report(reporters[0].credential)).json).toEqual({ ok: true }) // the same reporter twice counts once
      expect((await report(reporters[1].credential)).status).toBe(200)
      const seeking = () =>
        get('/api/boards/seeking').then((r) => r.json.map((item: { body: string }) => item.body))
      expect(await seeking()).toContain('A perfectly fine post to be reported.')
      await report(reporters[2].credential)
      expect(await seeking()).not.toContain('A perfectly fine post to be reported.')
      for (const body of [
        { targetType: 'photo', targetId: 1 },
        { targetType: 'post', targetId: 0 },
        { targetType: 'post', targetId: 1, reason: 'r'.repeat(501) },
        { targetType: 'post', targetId: 99_999_999 },
      ]) {
        const bad = await postJson(`${venue.url}/api/report`, body)
        expect(bad).toMatchObject({ status: 400, json: { error: 'invalid report' } })
      }
    })
  })

  describe('operator console', () => {
    it('needs the operator token; only known keys', async () => {
      expect(
        (await postJson(`${venue.url}/admin/actions/settings`, { key: 'cap', value: 5 })).status,
      ).toBe(401)
      expect(
        (
          await postJson(
            `${venue.url}/admin/actions/settings`,
            { key: 'cap', value: 5 },
            { authorization: 'Bearer wrong' },
          )
        ).status,
      ).toBe(403)
      expect((await admin('colour', 'red')).json.error).toBe('key not allowed')
      expect((await admin('cap', '')).json.error).toBe('value required')
    })
  })
})
