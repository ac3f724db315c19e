import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createLocalIdp,
  createLocalIssuer,
  type LocalIdp,
  type LocalIssuer,
  signWebhookBody,
} from './identity/testing/index.ts'
import type { Venue } from './start.ts'
import { createAgent, createOwner, HEART } from './test-helpers.ts'
import { launchTestBrowser } from './testing/launch-test-browser.ts'
import { startTestVenue, TEST_ADMIN_TOKEN, TEST_DATABASE_URL } from './testing.ts'

const server = TEST_DATABASE_URL
const backends = testBackends(server)
const outputDir = fileURLToPath(new URL('../../../test-output/dating-venue', import.meta.url))
const CONTACT_A = 'signal: alice-private-7731'
const CONTACT_B = 'telegram: bob-private-4420'

describe.each(backends)('escalation on $name', ({ name, open }) => {
  let venue: Venue
  let issuer: LocalIssuer
  let stranger: LocalIssuer
  let idp: LocalIdp
  let drop: () => Promise<void>
  const bodies: Array<{ route: string; body: string }> = []
  const invitesToA: string[] = []
  const hook = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      const parsed = JSON.parse(body) as { challenge?: string }
      if (!parsed.challenge) invitesToA.push(body)
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify(parsed.challenge ? { echo: parsed.challenge } : { ok: true }))
    })
  })

  beforeAll(async () => {
    const database = await open()
    drop = database.drop
    issuer = await createLocalIssuer()
    stranger = await createLocalIssuer()
    idp = await createLocalIdp()
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve))
    venue = await startTestVenue({
      databaseUrl: database.url,
      env: {
        VENUE_LOGIN_ISSUERS: JSON.stringify([issuer.trustedIssuer()]),
        VENUE_LOGIN_URL: issuer.loginUrl,
        IDP_BASE_URL: idp.url,
        IDP_API_KEY: idp.apiKey,
        IDP_WORKFLOW_ID: 'wf-18-plus',
        IDP_WEBHOOK_SECRET: idp.webhookSecret,
      },
    })
  }, 60_000)
  afterAll(async () => {
    await venue?.close()
    await issuer?.close()
    await stranger?.close()
    await idp?.close()
    hook.close()
    await drop?.()
  })

  /** Every response of the path is kept, to scan for contact details at the end. */
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${venue.url}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    bodies.push({ route: `${method} ${path.split('?')[0]}`, body: text })
    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON by path
    let json: any
    try {
      json = JSON.parse(text)
    } catch {}
    return { status: response.status, json, text }
  }
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  const sql = (text: string, params: unknown[] = []) =>
    venue.deps.database.client.query(text, params)
  const row = async <value>(text: string, params: unknown[] = []) =>
    (await sql(text, params)).rows[0] as value

  /** An owner with a filed doc (contactRef), an agent bound to it, and an admitted persona. */
  const member = async (contact: string, callbackUrl?: string) => {
    const owner = await createOwner(venue)
    await sql(
      `INSERT INTO heart_files (owner_id, home_market, active_market, research_optin, age_attested, contact_ref_sealed, heart, payment_reference)
       VALUES ($1, 'other', 'remote', 'none', true, $2, $3, $4)`,
      [owner.ownerId, venue.deps.sealer.seal(contact), JSON.stringify(HEART), randomUUID()],
    )
    const agent = await createAgent(
      venue,
      { ownerCredential: owner.credential, ownerId: owner.ownerId },
      callbackUrl,
    )
    const persona = await call(
      'POST',
      '/api/personas',
      {
        handle: `esc-${randomUUID().slice(0, 8)}`,
        model: 'm',
        persona_age: '18+',
        heart: HEART,
        ownerId: owner.ownerId,
      },
      bearer(agent.credential),
    )
    expect(persona.status).toBe(200)
    return { ...owner, agent, personaId: persona.json.personaId as number }
  }

  it('the whole path: consent, invite, claim in a browser, identity, consents, reveal', async () => {
    const hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`
    const a = await member(CONTACT_A, hookUrl)
    const b = await member(CONTACT_B)
    const outsider = await member('outsider-contact-000')
    await sql(`UPDATE personas SET status = 'withdrawn' WHERE id = $1`, [outsider.personaId])
    const beat = await call(
      'POST',
      '/admin/actions/beat',
      { cycleId: `esc-${name}` },
      bearer(TEST_ADMIN_TOKEN),
    )
    expect(beat.json.created).toBe(1)
    const coupleId = beat.json.coupleIds[0] as number

    // Intro consent: the spec's rows, then idempotent, then committed once.
    const consent = (ownerId: unknown, credential: string, id: unknown = coupleId) =>
      call(
        'POST',
        `/api/couples/${id}/intro-consent`,
        ownerId === undefined ? {} : { ownerId },
        bearer(credential),
      )
    expect((await consent(undefined, a.credential)).json.error).toBe('ownerId required')
    expect((await consent(a.ownerId, a.credential, 'x')).json.error).toBe('bad couple id')
    expect((await consent(a.ownerId, a.credential, 999_999)).status).toBe(404)
    expect((await consent(outsider.ownerId, outsider.credential)).json.error).toBe(
      'owner not in this couple',
    )
    expect((await consent(a.ownerId, b.credential)).status).toBe(403)
    expect(
      (await call('POST', `/api/escalations/${coupleId}/invite`, undefined, bearer(a.credential)))
        .status,
    ).toBe(409)
    expect((await consent(a.ownerId, a.credential)).json).toEqual({ consented: true, both: false })
    expect((await consent(a.ownerId, a.agent.credential)).json).toEqual({
      consented: true,
      both: false,
    })
    expect((await consent(b.ownerId, b.credential)).json).toEqual({ consented: true, both: true })
    expect((await consent(b.ownerId, b.credential)).json).toEqual({ consented: true, both: true })
    expect(await row(`SELECT state FROM couples WHERE id = $1`, [coupleId])).toEqual({
      state: 'committed',
    })
    expect(await row(`SELECT count(*)::int AS n FROM events WHERE kind = 'intro_ready'`)).toEqual({
      n: 1,
    })

    // Invites: A's token by signed callback, B's agent told on the board and fetching its own.
    expect(
      (
        await call(
          'POST',
          `/api/escalations/${coupleId}/invite`,
          undefined,
          bearer(outsider.credential),
        )
      ).status,
    ).toBe(403)
    const invite = await call(
      'POST',
      `/api/escalations/${coupleId}/invite`,
      undefined,
      bearer(a.agent.credential),
    )
    expect(invite.status).toBe(200)
    const mine = invite.json.invites.find((i: { ownerId: number }) => i.ownerId === a.ownerId)
    const theirs = invite.json.invites.find((i: { ownerId: number }) => i.ownerId === b.ownerId)
    expect(mine).toMatchObject({ delivery: 'callback' })
    expect(theirs).toMatchObject({ token: null, delivery: 'board' })
    const delivered = JSON.parse(invitesToA.at(-1)!) as { token: string; claimUrl: string }
    expect(delivered.token).toBe(mine.token)
    const tokenB = (
      await call(
        'GET',
        `/api/escalations/${coupleId}/invite`,
        undefined,
        bearer(b.agent.credential),
      )
    ).json.token
    expect(tokenB).toMatch(/^[0-9a-f-]{36}$/)
    const board = await call('GET', '/api/boards/notifications')
    expect(board.text).not.toContain(tokenB)
    expect(board.text).not.toContain(mine.token)

    // A's human claims in a real browser: sign in at the login provider, then the identity check.
    const browser = await launchTestBrowser()
    try {
      const page = await browser.newPage()
      await page.goto(delivered.claimUrl)
      await page.click('#sign-in')
      await page.getByText('Sign in as test human').click()
      await page.waitForURL(`${idp.url}/verify/**`, { timeout: 15_000 })
      mkdirSync(outputDir, { recursive: true })
      await page.screenshot({ path: `${outputDir}/identity-check-${name}.png` })
    } finally {
      await browser.close()
    }
    const claimedA = await row<{ tier: string; human_subject: string }>(
      `SELECT tier, human_subject FROM owners WHERE id = $1`,
      [a.ownerId],
    )
    expect(claimedA.tier).toBe('profile_claimed')
    const loginA = await issuer.sign({ sub: claimedA.human_subject })

    // B's human claims through the API; a racing second claim of the same invite loses.
    const loginB = await issuer.sign({ sub: 'human-b' })
    const claims = await Promise.all([
      call('POST', '/api/escalations/claim', { token: tokenB, authToken: loginB }),
      call('POST', '/api/escalations/claim', { token: tokenB, authToken: loginB }),
    ])
    expect(claims.map((c) => c.status).sort()).toEqual([200, 404])
    const claimB = claims.find((c) => c.status === 200)!
    expect(claimB.json).toMatchObject({
      ok: true,
      ownerId: b.ownerId,
      tier: 'profile_claimed',
      identityNote: null,
    })
    expect(claimB.json.diditUrl).toMatch(new RegExp(`^${idp.url}/verify/`))
    expect(claims.find((c) => c.status === 404)!.json.error).toBe('invalid or used invite')

    // Refused claims change nothing.
    const before = await row(`SELECT count(*)::int AS n FROM invites WHERE claimed_at IS NOT NULL`)
    expect(
      (await call('POST', '/api/escalations/claim', { token: mine.token, authToken: loginA }))
        .status,
    ).toBe(404)
    expect(
      (await call('POST', '/api/escalations/claim', { token: randomUUID(), authToken: loginA }))
        .status,
    ).toBe(404)
    expect((await call('POST', '/api/escalations/claim', { token: 'short' })).json.error).toBe(
      'token + authToken required',
    )
    const refreshed = await call(
      'POST',
      `/api/escalations/${coupleId}/invite`,
      undefined,
      bearer(b.credential),
    )
    const freshB = refreshed.json.invites.find(
      (i: { ownerId: number }) => i.ownerId === b.ownerId,
    ).token
    for (const [why, token] of [
      ['wrong issuer', await stranger.sign({ sub: 'human-b' })],
      ['wrong audience', await issuer.sign({ sub: 'human-b', aud: 'someone-else' })],
      ['expired', await issuer.sign({ sub: 'human-b' }, { expiresIn: -120 })],
      [
        'algorithm',
        await issuer.sign(
          { sub: 'human-b' },
          { alg: 'HS256', key: new TextEncoder().encode('x'.repeat(32)) },
        ),
      ],
      ['garbage', 'not-a-token-at-all'],
    ] as const) {
      const refused = await call('POST', '/api/escalations/claim', {
        token: freshB,
        authToken: token,
      })
      expect(refused.status, why).toBe(401)
      expect(refused.json.error).toBe('auth verification failed')
      expect(refused.json.reason).toBeTruthy()
    }
    expect(
      await row(`SELECT count(*)::int AS n FROM invites WHERE claimed_at IS NOT NULL`),
    ).toEqual(before)

    // New identity sessions: only for the human who claimed the owner.
    expect((await call('POST', '/api/identity/session', {})).json.error).toBe('ownerId required')
    expect((await call('POST', '/api/identity/session', { ownerId: 999_999 })).status).toBe(404)
    expect(
      (await call('POST', '/api/identity/session', { ownerId: outsider.ownerId }, bearer(loginA)))
        .status,
    ).toBe(403)
    expect((await call('POST', '/api/identity/session', { ownerId: a.ownerId })).status).toBe(401)
    expect(
      (await call('POST', '/api/identity/session', { ownerId: a.ownerId }, bearer(loginB))).status,
    ).toBe(403)

    // The reveal is refused until both are verified and both consented.
    const revealA = () => call('GET', `/api/couples/${coupleId}/reveal`, undefined, bearer(loginA))
    expect((await revealA()).json).toMatchObject({ error: 'reveal not ready' })
    expect(
      (await call('GET', `/api/couples/${coupleId}/reveal`, undefined, bearer(a.agent.credential)))
        .status,
    ).toBe(401)
    expect(
      (
        await call(
          'GET',
          `/api/couples/${coupleId}/reveal`,
          undefined,
          bearer(await issuer.sign({ sub: 'nobody' })),
        )
      ).status,
    ).toBe(403)

    // Webhooks: approved at 18+, then forged, stale, replayed and re-ordered deliveries change nothing.
    const sessionOf = async (ownerId: number) =>
      (
        await row<{ session_id: string }>(
          `SELECT session_id FROM identity_sessions WHERE owner_id = $1 ORDER BY created_at DESC LIMIT 1`,
          [ownerId],
        )
      ).session_id
    const sessionA = await sessionOf(a.ownerId)
    const sessionB = await sessionOf(b.ownerId)
    const webhook = `${venue.url}/api/identity/webhook/idp`
    expect((await idp.decide(sessionA, { status: 'Approved', age: 31 })).status).toBe(200)
    const replay = idp.lastDelivery!
    expect(await row(`SELECT tier, age_over_18 FROM owners WHERE id = $1`, [a.ownerId])).toEqual({
      tier: 'identity_verified',
      age_over_18: true,
    })
    expect((await idp.sendRaw(replay.url, replay.body, replay.headers)).json).toMatchObject({
      ok: true,
      note: expect.stringMatching(/older or repeated/),
    })
    const tampered = replay.body.replace('"age":31', '"age":13')
    expect((await idp.sendRaw(webhook, tampered, replay.headers)).json).toEqual({
      error: 'webhook rejected',
      reason: 'bad signature',
    })
    const oldTime = String(Math.floor(Date.now() / 1000) - 400)
    expect(
      (await idp.sendRaw(webhook, replay.body, { ...replay.headers, 'x-timestamp': oldTime })).json,
    ).toMatchObject({ reason: 'stale timestamp' })
    const declined = JSON.stringify({
      webhook_type: 'status.updated',
      session_id: sessionA,
      status: 'Declined',
    })
    const earlier = String(Number(replay.headers['x-timestamp']) - 60)
    const reordered = await idp.sendRaw(webhook, declined, {
      'x-signature': signWebhookBody(declined, idp.webhookSecret),
      'x-timestamp': earlier,
    })
    expect(reordered.json).toMatchObject({
      ok: true,
      note: expect.stringMatching(/older or repeated/),
    })
    expect(await row(`SELECT tier FROM owners WHERE id = $1`, [a.ownerId])).toEqual({
      tier: 'identity_verified',
    })
    const unknown = JSON.stringify({
      webhook_type: 'status.updated',
      session_id: 'no-such-session',
      status: 'Approved',
    })
    const now = String(Math.floor(Date.now() / 1000))
    expect(
      (
        await idp.sendRaw(webhook, unknown, {
          'x-signature': signWebhookBody(unknown, idp.webhookSecret),
          'x-timestamp': now,
        })
      ).json,
    ).toEqual({
      ok: true,
      note: 'no matching session/vendor_data',
    })
    const other = JSON.stringify({ webhook_type: 'data.updated', session_id: sessionA })
    expect(
      (
        await idp.sendRaw(webhook, other, {
          'x-signature': signWebhookBody(other, idp.webhookSecret),
          'x-timestamp': now,
        })
      ).json,
    ).toMatchObject({ ok: true, ignored: 'data.updated' })
    expect(
      (await idp.decide(sessionB, { status: 'Approved', dateOfBirth: '1990-04-02' })).status,
    ).toBe(200)

    // Contact-reveal consent comes from the signed-in humans, not the agents.
    expect(
      (
        await call(
          'POST',
          `/api/couples/${coupleId}/reveal-consent`,
          undefined,
          bearer(a.agent.credential),
        )
      ).status,
    ).toBe(401)
    expect(
      (await call('POST', `/api/couples/${coupleId}/reveal-consent`, undefined, bearer(loginA)))
        .json,
    ).toEqual({ consented: true, both: false })
    const notYet = await revealA()
    expect(notYet.status).toBe(403)
    expect(notYet.json.missing).toEqual([`owner ${b.ownerId}: no contact-reveal consent`])
    const status = await call('GET', `/api/escalations/${coupleId}/status`)
    expect(status.json).toMatchObject({ coupleId, reveal_ready: false })
    expect(
      (await call('POST', `/api/couples/${coupleId}/reveal-consent`, undefined, bearer(loginB)))
        .json,
    ).toEqual({ consented: true, both: true })
    expect((await call('GET', `/api/escalations/${coupleId}/status`)).json).toEqual({
      coupleId,
      owners: [
        { id: a.ownerId, tier: 'identity_verified' },
        { id: b.ownerId, tier: 'identity_verified' },
      ].sort((x, y) => x.id - y.id),
      reveal_ready: true,
    })
    expect((await revealA()).json).toMatchObject({
      coupleId,
      ownerId: b.ownerId,
      contactRef: CONTACT_B,
    })
    expect(
      (await call('GET', `/api/couples/${coupleId}/reveal`, undefined, bearer(loginB))).json
        .contactRef,
    ).toBe(CONTACT_A)

    // The operator brokers the introduction.
    expect(
      (await call('POST', '/admin/actions/broker', {}, bearer(TEST_ADMIN_TOKEN))).json.error,
    ).toBe('coupleId required')
    expect(
      (await call('POST', '/admin/actions/broker', { coupleId }, bearer(TEST_ADMIN_TOKEN))).json,
    ).toEqual({ ok: true, coupleId })
    expect(
      (await call('POST', '/admin/actions/broker', { coupleId }, bearer(TEST_ADMIN_TOKEN))).status,
    ).toBe(409)
    expect(
      await row(`SELECT count(*)::int AS n FROM events WHERE kind = 'intro_brokered'`),
    ).toEqual({ n: 1 })

    // No response but the reveal ever carried a contactRef.
    for (const { route, body } of bodies) {
      if (route.endsWith('/reveal') && route.startsWith('GET')) continue
      for (const contact of [CONTACT_A, CONTACT_B, 'outsider-contact-000'])
        expect(body, route).not.toContain(contact)
    }
  }, 120_000)

  it('approved but under 18: not verified, the personas leave the venue', async () => {
    const c = await member('minor-contact-1')
    const d = await member('partner-contact-1')
    const beat = await call(
      'POST',
      '/admin/actions/beat',
      { cycleId: `minor-${name}` },
      bearer(TEST_ADMIN_TOKEN),
    )
    const coupleId = beat.json.coupleIds[0] as number
    await call(
      'POST',
      `/api/couples/${coupleId}/intro-consent`,
      { ownerId: c.ownerId },
      bearer(c.credential),
    )
    await call(
      'POST',
      `/api/couples/${coupleId}/intro-consent`,
      { ownerId: d.ownerId },
      bearer(d.credential),
    )
    const invite = await call(
      'POST',
      `/api/escalations/${coupleId}/invite`,
      undefined,
      bearer(c.credential),
    )
    const token = invite.json.invites.find(
      (i: { ownerId: number }) => i.ownerId === c.ownerId,
    ).token
    const claim = await call('POST', '/api/escalations/claim', {
      token,
      authToken: await issuer.sign({ sub: `minor-${name}` }),
    })
    const sessionId = claim.json.diditUrl.split('/verify/')[1]
    expect((await idp.decide(sessionId, { status: 'Approved', age: 16 })).status).toBe(200)
    expect(await row(`SELECT tier, age_over_18 FROM owners WHERE id = $1`, [c.ownerId])).toEqual({
      tier: 'profile_claimed',
      age_over_18: false,
    })
    expect(await row(`SELECT status FROM personas WHERE id = $1`, [c.personaId])).toEqual({
      status: 'withdrawn',
    })
    expect(await row(`SELECT state FROM couples WHERE id = $1`, [coupleId])).toEqual({
      state: 'withdrawn',
    })
    expect(
      await row(`SELECT count(*)::int AS n FROM events WHERE kind = 'underage_withdrawn'`),
    ).toEqual({ n: 1 })
  }, 60_000)
})
