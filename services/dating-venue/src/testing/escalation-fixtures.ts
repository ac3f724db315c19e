import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { TestBackend } from '@agents/service-kit/db'
import { afterAll, beforeAll, expect } from 'vitest'
import { createLocalIdp, type LocalIdp } from '../identity/testing/local-idp.ts'
import { createLocalIssuer, type LocalIssuer } from '../identity/testing/local-issuer.ts'
import type { Venue } from '../start.ts'
import { createAgent, createOwner, HEART } from '../test-helpers.ts'
import { startTestVenue, TEST_ADMIN_TOKEN } from '../testing.ts'

export const CONTACT_A = 'signal: alice-private-7731'
export const CONTACT_B = 'telegram: bob-private-4420'
export const OUTSIDER_CONTACT = 'outsider-contact-000'

/** What the couple helpers need of a member (`member` returns more). */
type Member = { ownerId: number; credential: string; agent: { credential: string } }

/**
 * A venue for the escalation path on one backend, for a describe block: a
 * login issuer (and a stranger one it does not trust), the identity
 * provider stand-in, and an agent callback server that keeps the invites it
 * is sent. Every response read through `call` is kept in `bodies`, so a
 * test can check that no answer but the reveal carried a contact pointer.
 *
 * `env` adds venue settings (e.g. VENUE_LOGIN_SIWE_DOMAIN for SIWE logins).
 *
 * @example
 * const esc = useEscalationVenue(open)
 * it('...', async () => { const a = await esc.member(CONTACT_A) })
 */
export const useEscalationVenue = (
  open: TestBackend['open'],
  { env = {} }: { env?: Record<string, string> } = {},
) => {
  const context = {} as {
    venue: Venue
    issuer: LocalIssuer
    stranger: LocalIssuer
    idp: LocalIdp
  }
  let drop: (() => Promise<void>) | undefined
  const bodies: Array<{ route: string; body: string }> = []
  const invitesToHook: string[] = []
  const hook = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      const parsed = JSON.parse(body) as { challenge?: string }
      if (!parsed.challenge) invitesToHook.push(body)
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify(parsed.challenge ? { echo: parsed.challenge } : { ok: true }))
    })
  })

  beforeAll(async () => {
    const database = await open()
    drop = database.drop
    context.issuer = await createLocalIssuer()
    context.stranger = await createLocalIssuer()
    context.idp = await createLocalIdp()
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve))
    context.venue = await startTestVenue({
      databaseUrl: database.url,
      env: {
        VENUE_LOGIN_ISSUERS: JSON.stringify([context.issuer.trustedIssuer()]),
        VENUE_LOGIN_URL: context.issuer.loginUrl,
        IDP_BASE_URL: context.idp.url,
        IDP_API_KEY: context.idp.apiKey,
        IDP_WORKFLOW_ID: 'wf-18-plus',
        IDP_WEBHOOK_SECRET: context.idp.webhookSecret,
        ...env,
      },
    })
  }, 60_000)
  afterAll(async () => {
    await context.venue?.close()
    await context.issuer?.close()
    await context.stranger?.close()
    await context.idp?.close()
    hook.close()
    await drop?.()
  })

  /** One request; its answer is kept in `bodies`. */
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${context.venue.url}${path}`, {
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
  const operator = bearer(TEST_ADMIN_TOKEN)
  const sql = (text: string, params: unknown[] = []) =>
    context.venue.deps.database.client.query(text, params)
  const row = async <value>(text: string, params: unknown[] = []) =>
    (await sql(text, params)).rows[0] as value

  /** An owner with a filed doc (contactRef), an agent bound to it, and an admitted persona. */
  const member = async (contact: string, callbackUrl?: string) => {
    const { venue } = context
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

  /** The address of the agent callback server (invites sent there are kept). */
  const hookUrl = () => `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`

  /** A beat of its own cycle pairs the admitted personas; the couple formed. */
  const beat = async (cycleId: string) => {
    const answer = await call('POST', '/admin/actions/beat', { cycleId }, operator)
    expect(answer.json, answer.text).toMatchObject({ created: 1 })
    return answer.json.coupleIds[0] as number
  }

  /** Both owners give intro consent: the couple is committed. */
  const commit = async (coupleId: number, ...members: Member[]) => {
    for (const { ownerId, credential } of members)
      expect(
        (
          await call(
            'POST',
            `/api/couples/${coupleId}/intro-consent`,
            { ownerId },
            bearer(credential),
          )
        ).status,
      ).toBe(200)
  }

  /** Invites for a committed couple, minted by `by`; the tokens by owner, fetched by each agent. */
  const invites = async (coupleId: number, ...members: Member[]) => {
    const minted = await call(
      'POST',
      `/api/escalations/${coupleId}/invite`,
      undefined,
      bearer(members[0]!.credential),
    )
    expect(minted.status).toBe(200)
    const tokens = new Map<number, string>()
    for (const { ownerId, agent } of members) {
      const own = await call(
        'GET',
        `/api/escalations/${coupleId}/invite`,
        undefined,
        bearer(agent.credential),
      )
      tokens.set(ownerId, own.json.token as string)
    }
    return tokens
  }

  /** The human signs in as `subject` and claims through the API; the login token and the check URL. */
  const claim = async (token: string, subject: string) => {
    const login = await context.issuer.sign({ sub: subject })
    const claimed = await call('POST', '/api/escalations/claim', { token, authToken: login })
    expect(claimed.status).toBe(200)
    return { login, diditUrl: claimed.json.diditUrl as string }
  }

  /** The newest identity session of an owner. */
  const sessionOf = async (ownerId: number) =>
    (
      await row<{ session_id: string }>(
        `SELECT session_id FROM identity_sessions WHERE owner_id = $1 ORDER BY created_at DESC LIMIT 1`,
        [ownerId],
      )
    ).session_id

  /** No answer but a reveal ever carried a contact pointer. */
  const expectNoContactOutsideReveal = (contacts: readonly string[]) => {
    for (const { route, body } of bodies) {
      if (route.endsWith('/reveal') && route.startsWith('GET')) continue
      for (const contact of contacts) expect(body, route).not.toContain(contact)
    }
  }

  return {
    context,
    bodies,
    invitesToHook,
    call,
    bearer,
    operator,
    sql,
    row,
    member,
    hookUrl,
    beat,
    commit,
    invites,
    claim,
    sessionOf,
    expectNoContactOutsideReveal,
  }
}
