import { randomUUID } from 'node:crypto'
import { createApp, createLogger, startTestServer } from '@agents/service-kit'
import { z } from 'zod'
import { IDP_API_VERSIONS, type IdpApiVersion, idpSessionPath } from '../idp-session-path.ts'
import { SIGNATURE_HEADER, signWebhookBody, TIMESTAMP_HEADER } from '../webhook-signature.ts'
import { renderDecidedPage, renderVerifyPage } from './verify-page.ts'

export type LocalIdpSession = {
  sessionId: string
  /** The session API the session was created through (`/v3/session/` or `/v2/session/`). */
  apiVersion: IdpApiVersion
  workflowId: string
  vendorData?: string | undefined
  callback?: string | undefined
  metadata?: unknown
  status: string
}

export type LocalIdpDecision = {
  status: 'Approved' | 'Declined'
  age?: number
  /** `YYYY-MM-DD`. */
  dateOfBirth?: string
}

export type LocalIdpDelivery = { url: string; body: string; headers: Record<string, string> }
export type LocalIdpAnswer = { status: number; text: string; json: unknown }

/** Makes session creation misbehave until reset with `misbehave(undefined)`. */
export type LocalIdpMisbehaviour = { status?: number; body?: string; delayMs?: number }

const SessionRequest = z.object({
  workflow_id: z.string().min(1),
  vendor_data: z.string().optional(),
  callback: z.url().optional(),
  metadata: z.unknown().optional(),
})

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The venue's webhook route: where webhooks go when no webhook URL is set (see below). */
const DEFAULT_WEBHOOK_PATH = '/api/identity/webhook/idp'

/**
 * A local identity provider speaking the Didit protocol over real HTTP:
 * `POST /v3/session/` and `/v2/session/` with `x-api-key`, a hosted
 * `GET /verify/:id` page whose buttons decide and then send the browser to
 * the session's `callback` with `verificationSessionId` and `status` (as
 * Didit does), and signed `status.updated` webhooks sent by `decide`.
 * Webhooks go to the webhook URL (Didit: set in its console; here
 * `webhookUrl` or `setWebhookUrl`), never to the `callback`; without one, a
 * test stand-in, to `webhookPath` on the callback's origin.
 */
export const createLocalIdp = async ({
  apiKey = 'local-idp-api-key',
  webhookSecret = 'local-idp-webhook-secret',
  webhookUrl: configuredWebhookUrl,
  webhookPath = DEFAULT_WEBHOOK_PATH,
}: {
  apiKey?: string
  webhookSecret?: string
  webhookUrl?: string
  webhookPath?: string
} = {}) => {
  let webhookUrl = configuredWebhookUrl
  const sessions = new Map<string, LocalIdpSession>()
  let lastDelivery: LocalIdpDelivery | undefined
  let misbehaviour: LocalIdpMisbehaviour | undefined

  const sendRaw = async (
    url: string,
    body: string | Uint8Array,
    headers: Record<string, string> = {},
  ): Promise<LocalIdpAnswer> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      // A copy backed by a plain ArrayBuffer, as fetch's BodyInit type wants.
      body: typeof body === 'string' ? body : new Uint8Array(body),
    })
    const text = await response.text()
    return { status: response.status, text, json: parseJson(text) }
  }

  const decide = async (sessionId: string, decision: LocalIdpDecision): Promise<LocalIdpAnswer> => {
    const session = sessions.get(sessionId)
    if (!session) throw new Error(`local idp: no session ${sessionId}`)
    const url =
      webhookUrl ?? (session.callback ? new URL(webhookPath, session.callback).href : undefined)
    if (!url)
      throw new Error(`local idp: no webhook URL set and session ${sessionId} has no callback`)
    session.status = decision.status
    const timestamp = Math.floor(Date.now() / 1000)
    const body = JSON.stringify({
      webhook_type: 'status.updated',
      session_id: sessionId,
      status: decision.status,
      workflow_id: session.workflowId,
      ...(session.vendorData !== undefined ? { vendor_data: session.vendorData } : {}),
      timestamp,
      created_at: timestamp,
      decision: {
        session_id: sessionId,
        status: decision.status,
        id_verification: {
          status: decision.status,
          ...(decision.age !== undefined ? { age: decision.age } : {}),
          ...(decision.dateOfBirth !== undefined ? { date_of_birth: decision.dateOfBirth } : {}),
        },
      },
    })
    const headers = {
      'user-agent': 'DiditWebhook/2.0 (local)',
      [SIGNATURE_HEADER]: signWebhookBody(body, webhookSecret),
      [TIMESTAMP_HEADER]: String(timestamp),
    }
    lastDelivery = { url, body, headers }
    return sendRaw(url, body, headers)
  }

  const app = createApp({
    name: 'local-idp',
    version: '0.0.0',
    logger: createLogger({ name: 'local-idp', level: 'silent' }),
  })
  let baseUrl = ''
  const sessionRoutes = IDP_API_VERSIONS.flatMap((apiVersion) => {
    const path = idpSessionPath(apiVersion)
    return [
      { apiVersion, path },
      { apiVersion, path: path.replace(/\/$/, '') },
    ]
  })
  for (const { apiVersion, path } of sessionRoutes) {
    app.post(path, async (c) => {
      if (misbehaviour?.delayMs)
        await new Promise((done) => setTimeout(done, misbehaviour?.delayMs))
      if (misbehaviour?.status || misbehaviour?.body !== undefined)
        return c.body(misbehaviour.body ?? '{}', (misbehaviour.status ?? 201) as 201, {
          'content-type': 'application/json',
        })
      if (c.req.header('x-api-key') !== apiKey) return c.json({ detail: 'Invalid API key' }, 403)
      const parsed = SessionRequest.safeParse(await c.req.json().catch(() => undefined))
      if (!parsed.success)
        return c.json({ detail: 'invalid request', issues: parsed.error.issues }, 400)
      const { workflow_id, vendor_data, callback, metadata } = parsed.data
      const sessionId = randomUUID()
      sessions.set(sessionId, {
        sessionId,
        apiVersion,
        workflowId: workflow_id,
        vendorData: vendor_data,
        callback,
        metadata,
        status: 'Not Started',
      })
      return c.json(
        {
          session_id: sessionId,
          session_token: sessionId.replaceAll('-', '').slice(0, 16),
          url: `${baseUrl}/verify/${sessionId}`,
          vendor_data: vendor_data ?? null,
          metadata: metadata ?? null,
          status: 'Not Started',
          callback: callback ?? null,
          workflow_id,
        },
        201,
      )
    })
  }
  app.get('/verify/:id', (c) => {
    const session = sessions.get(c.req.param('id'))
    if (!session) return c.html('<!doctype html><p>No such session</p>', 404)
    return c.html(renderVerifyPage(session))
  })
  // The hosted page's buttons: what a human finishing the check would trigger.
  app.post('/verify/:id/decision', async (c) => {
    const form = await c.req.parseBody()
    const status = form.status === 'Approved' ? 'Approved' : 'Declined'
    const age = Number(form.age)
    const answer = await decide(c.req.param('id'), {
      status,
      ...(Number.isInteger(age) && age > 0 ? { age } : {}),
    })
    const callback = sessions.get(c.req.param('id'))?.callback
    if (!callback) return c.html(renderDecidedPage({ status, answerStatus: answer.status }))
    // Didit sends the browser back to the callback with these two in the query.
    const back = new URL(callback)
    back.searchParams.set('verificationSessionId', c.req.param('id'))
    back.searchParams.set('status', status)
    return c.redirect(back.href, 303)
  })

  const server = await startTestServer(app)
  baseUrl = server.url
  return {
    url: server.url,
    apiKey,
    webhookSecret,
    sessions: sessions as ReadonlyMap<string, LocalIdpSession>,
    decide,
    sendRaw,
    /** The last webhook `decide` sent, to replay it with `sendRaw`. */
    get lastDelivery() {
      return lastDelivery
    },
    /** What Didit's console (or its webhook-destinations API) sets: where webhooks go. */
    setWebhookUrl: (url: string | undefined) => {
      webhookUrl = url
    },
    misbehave: (next: LocalIdpMisbehaviour | undefined) => {
      misbehaviour = next
    },
    close: server.close,
  }
}

export type LocalIdp = Awaited<ReturnType<typeof createLocalIdp>>
