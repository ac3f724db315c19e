import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { createOwner } from '../test-helpers.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { createLocalIdp, type LocalIdp } from './testing/local-idp.ts'
import { createLocalIssuer, type LocalIssuer } from './testing/local-issuer.ts'

// The venue with a Didit-compatible provider on each API version: the session's
// `callback` is the venue's page for the human's browser, the webhook is set at the provider.
describe.each(
  testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE).flatMap((backend) =>
    (['v3', 'v2', undefined] as const).map((apiVersion) => ({ ...backend, apiVersion })),
  ),
)('identity callback page on $name, API $apiVersion', ({ open, apiVersion }) => {
  let venue: Venue
  let issuer: LocalIssuer
  let idp: LocalIdp
  let drop: () => Promise<void>

  beforeAll(async () => {
    const database = await open()
    drop = database.drop
    issuer = await createLocalIssuer()
    idp = await createLocalIdp()
    venue = await startTestVenue({
      databaseUrl: database.url,
      env: {
        VENUE_LOGIN_ISSUERS: JSON.stringify([issuer.trustedIssuer()]),
        IDP_BASE_URL: idp.url,
        IDP_API_KEY: idp.apiKey,
        IDP_WORKFLOW_ID: 'wf-18-plus',
        IDP_WEBHOOK_SECRET: idp.webhookSecret,
        ...(apiVersion ? { IDP_API_VERSION: apiVersion } : {}),
      },
    })
    // Didit's console setting: the webhook URL is configured at the provider.
    idp.setWebhookUrl(`${venue.url}/api/identity/webhook/idp`)
  }, 60_000)
  afterAll(async () => {
    await venue?.close()
    await issuer?.close()
    await idp?.close()
    await drop?.()
  })

  /** A claimed owner and a new identity session started by its human. */
  const startSession = async () => {
    const { ownerId } = await createOwner(venue)
    const human = `done-human-${ownerId}-${apiVersion ?? 'default'}`
    await venue.deps.database.client.query(
      `UPDATE owners SET human_subject = $1, tier = 'profile_claimed' WHERE id = $2`,
      [human, ownerId],
    )
    const response = await fetch(`${venue.url}/api/identity/session`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${await issuer.sign({ sub: human })}`,
      },
      body: JSON.stringify({ ownerId }),
    })
    expect(response.status).toBe(200)
    const { sessionId, url } = (await response.json()) as { sessionId: string; url: string }
    return { ownerId, sessionId, url }
  }
  const tierOf = async (ownerId: number) =>
    (await venue.deps.database.client.query(`SELECT tier FROM owners WHERE id = $1`, [ownerId]))
      .rows[0]

  it('sends the session to the configured API version with the page as its callback', async () => {
    const { sessionId } = await startSession()
    expect(idp.sessions.get(sessionId)).toMatchObject({
      apiVersion: apiVersion ?? 'v3',
      workflowId: 'wf-18-plus',
      callback: `${venue.url}/identity/done`,
    })
    expect(idp.sessions.get(sessionId)?.callback).not.toContain('/webhook')
  })

  it("lands the human's browser on the page; the webhook alone verifies", async () => {
    const { ownerId, sessionId, url } = await startSession()
    expect((await fetch(url)).status).toBe(200)
    // The hosted page's Approve button: the decision goes to the webhook, the browser to the callback.
    const decided = await fetch(`${idp.url}/verify/${sessionId}/decision`, {
      method: 'POST',
      body: new URLSearchParams({ status: 'Approved', age: '34' }),
      redirect: 'manual',
    })
    expect(decided.status).toBe(303)
    const landing = decided.headers.get('location')!
    expect(landing).toBe(
      `${venue.url}/identity/done?verificationSessionId=${sessionId}&status=Approved`,
    )
    expect(idp.lastDelivery?.url).toBe(`${venue.url}/api/identity/webhook/idp`)
    expect(await tierOf(ownerId)).toEqual({ tier: 'identity_verified' })

    const page = await fetch(landing)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const nonce = /style-src 'nonce-([^']+)'/.exec(page.headers.get('content-security-policy')!)
    expect(nonce).not.toBeNull()
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(page.headers.get('cache-control')).toBe('no-store')
    const html = await page.text()
    expect(html).toContain(`<style nonce="${nonce![1]}">`)
    expect(html).toContain('<strong id="reported-status">Approved</strong>')
    expect(html).toContain('What happens next')
  })

  it('trusts the query for nothing', async () => {
    const { ownerId, sessionId } = await startSession()
    const forged = await fetch(
      `${venue.url}/identity/done?verificationSessionId=${sessionId}&status=Approved`,
    )
    expect(forged.status).toBe(200)
    expect(await tierOf(ownerId)).toEqual({ tier: 'profile_claimed' })
    const bare = await fetch(`${venue.url}/identity/done`)
    expect(bare.status).toBe(200)
    expect(await bare.text()).toContain('The link did not say how the check went')
    // What used to be sent as the callback is the webhook: a browser's GET is not one.
    expect((await fetch(`${venue.url}/api/identity/webhook/idp`)).status).toBe(405)
  })

  it('documents the page in /openapi.json', async () => {
    const document = (await (await fetch(`${venue.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>
    }
    expect(Object.keys(document.paths['/identity/done'] ?? {})).toEqual(['get'])
  })
})
