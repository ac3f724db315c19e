import { type AnyPaidItem, decodeBase64Json, sellItem } from '@agents/payments'
import { hostNamed, mcpToolCall, walkForeignHost } from '@agents/service-kit/bad-input'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { VenueDeps } from './deps.ts'
import { createLocalIdp, type LocalIdp } from './identity/testing/local-idp.ts'
import { createLocalIssuer, type LocalIssuer } from './identity/testing/local-issuer.ts'
import { PAID_ITEMS } from './paid-items.ts'
import type { Venue } from './start.ts'
import { signInToChat } from './testing/chat-fixtures.ts'
import { type ChatStandIn, startChatStandIn } from './testing/chat-stand-in.ts'
import { walkCredentials, walkFixtures, walkSamples } from './testing/walk-fixtures.ts'
import { startTestVenue } from './testing.ts'

// No absolute URL comes from the request: every route of /openapi.json (the paid routes'
// 402s, the pages, llms.txt, skill, invites), with every credential it takes, and the MCP
// tools, sent with Host, X-Forwarded-Host and Forwarded naming evil.example.

const BASE_URL = 'https://venue.example'
const HOSTILE = { host: 'evil.example', 'x-forwarded-host': 'evil.example' }

let venue: Venue
let issuer: LocalIssuer
let chat: ChatStandIn
let idp: LocalIdp

beforeAll(async () => {
  chat = await startChatStandIn()
  issuer = await createLocalIssuer()
  idp = await createLocalIdp()
  venue = await startTestVenue({
    env: {
      BASE_URL,
      VENUE_LOGIN_ISSUERS: JSON.stringify([issuer.trustedIssuer()]),
      VENUE_LOGIN_URL: issuer.loginUrl,
      IDP_BASE_URL: idp.url,
      IDP_API_KEY: idp.apiKey,
      IDP_WORKFLOW_ID: 'wf-18-plus',
      IDP_WEBHOOK_SECRET: idp.webhookSecret,
      // A model that answers, so the matchmaker's paid routes reach their 402.
      MATCHMAKER_CHAT_URL: chat.url,
      // MPP too, so that its WWW-Authenticate challenge is searched as well (issuing one reads no chain).
      PAYMENTS_MPP_SECRET: 'foreign-host-test-secret-0123456789',
      PAYMENTS_TEMPO_RPC_URL: 'http://127.0.0.1:9',
    },
  })
}, 60_000)
afterAll(async () => {
  await venue?.close()
  await chat?.close()
  await issuer?.close()
  await idp?.close()
})

/** The walk's fixtures (the couple consented, so its invites' claim links exist) and a chat session. */
const fixtures = async () => ({
  ...(await walkFixtures(venue, issuer, { prefix: 'host', consented: true })),
  cookie: (await signInToChat(venue.url)).cookie,
})

it('finds evil.example in no answer of any route, with any credential', async () => {
  const f = await fixtures()
  // What the paid routes' 402s name as their resource, and the invites' claim links.
  const resources = new Map<string, string>()
  const claimLinks: string[] = []
  const { operations, statuses, leaks } = await walkForeignHost({
    baseUrl: venue.url,
    // The operator's beat starts the venue's index process (a fork, its code loaded and warmed):
    // 2 s alone, more than 10 s on a CI machine running every tier at once.
    timeoutMs: 30_000,
    onAnswer: (label, { rawHeaders, text }) => {
      const at = rawHeaders.findIndex(
        (part, index) => index % 2 === 0 && /^payment-required$/i.test(part),
      )
      if (at >= 0)
        resources.set(
          label.split(' ')[1]!,
          (decodeBase64Json(rawHeaders[at + 1]!) as { resource: { url: string } }).resource.url,
        )
      claimLinks.push(...(text.match(/https?:[^"\s]*\/claim\?token=[^"\s]*/g) ?? []))
    },
    samples: walkSamples(f),
    operationSamples: { 'POST /api/couples/{id}/withdraw': f.withdrawn },
    // Ending the chat session and erasing the owner would refuse every request after them
    // that uses their credentials: both are sent last, below.
    skip: ({ method, path }) =>
      path === '/api/chat/session/end' || (method === 'DELETE' && path === '/api/owners/{ownerId}'),
    credentials: { ...walkCredentials(f, idp), chatSession: { cookie: f.cookie } },
    requests: [
      mcpToolCall('get_skill'),
      mcpToolCall('how_to_join'),
      mcpToolCall('compatibility_report_info'),
      mcpToolCall('get_stats'),
      {
        method: 'POST',
        path: '/api/chat/session/end',
        headers: { cookie: f.cookie, 'content-type': 'application/json' },
        body: '{}',
      },
      {
        method: 'DELETE',
        path: `/api/owners/${f.owner.ownerId}`,
        headers: { authorization: `Bearer ${f.owner.credential}` },
      },
    ],
  })
  expect(operations).toEqual(
    expect.arrayContaining(['GET /', 'GET /llms.txt', 'POST /api/intake/heart-file']),
  )
  expect(leaks).toEqual([])
  // The walk got where absolute URLs are written: the paid routes' 402s (the chat doc's needs a
  // token holding; its item is checked below), the pages, the documents, the invite's claim link.
  expect(statuses).toMatchObject({
    'GET / [no credential]': 200,
    'GET /llms.txt [no credential]': 200,
    'GET /llms-full.txt [no credential]': 200,
    'GET /skill [no credential]': 200,
    'GET /claim [no credential]': 200,
    'GET /chat [no credential]': 200,
    'GET /admin [operator]': 200,
    'POST /api/intake/heart-file [no credential]': 402,
    'POST /api/premium/compatibility-report [credential]': 402,
    'POST /api/featured/post [credential]': 402,
    'POST /api/chat/ask [credential]': 402,
    'POST /api/chat/topup [chatSession]': 402,
    'POST /api/escalations/{coupleId}/invite [credential]': 200,
    'GET /api/escalations/{coupleId}/invite [credential]': 200,
    'POST /api/chat/session/nonce [no credential]': 200,
    'MCP get_skill': 200,
  })
  for (const path of [
    '/api/intake/heart-file',
    '/api/premium/compatibility-report',
    '/api/featured/post',
    '/api/chat/ask',
    '/api/chat/topup',
  ])
    expect(resources.get(path), path).toBe(`${BASE_URL}${path}`)
  expect(claimLinks.length).toBeGreaterThan(0)
  for (const link of claimLinks) expect(link).toMatch(/^https:\/\/venue\.example\/claim\?token=/)
}, 180_000)

it("each paid item's 402 names its route on the venue's base URL, whatever the request's host", async () => {
  for (const item of PAID_ITEMS) {
    const outcome = await sellItem(
      venue.deps,
      new Request(`http://evil.example${item.path}`, { method: 'POST', headers: HOSTILE }),
      item as AnyPaidItem<VenueDeps>,
      { price: { amount: 1_000_000n }, order: {}, requestKey: `host:${item.kind}` },
    )
    if (outcome.type !== 'challenge') throw new Error(`${item.path}: ${outcome.type}`)
    const response = await outcome.challenge.respond()
    const required = decodeBase64Json(response.headers.get('payment-required')!) as {
      resource: { url: string }
    }
    expect(required.resource.url, item.path).toBe(`${BASE_URL}${item.path}`)
    expect(response.headers.get('www-authenticate'), item.path).toMatch(/^Payment /)
    const rawHeaders: string[] = []
    response.headers.forEach((value, name) => {
      rawHeaders.push(name, value)
    })
    expect(
      hostNamed({ rawHeaders, text: await response.text() }, 'evil.example'),
      item.path,
    ).toBeUndefined()
  }
})
