import { document, errors, json } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { ChatDraft } from '../ask-matchmaker/matchmaker-schemas.ts'
import { readExchanges } from '../ask-matchmaker/messages.ts'
import type { VenueDeps } from '../deps.ts'
import { ChatEscalation } from '../escalation/chat-escalation-schema.ts'
import { scriptPage } from '../http/script-page.ts'
import { ChatReview } from '../intake/submit-doc-schemas.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import type { VenueApp } from '../venue-env.ts'
import { CHAT_ERRORS } from '../wallet-session/chat-errors.ts'
import { chatWalletOf, requireChatWallet } from '../wallet-session/wallet-session.ts'
import { chatAccount } from './chat-account.ts'
import { chatPage } from './chat-page.ts'

const chatSession = [{ chatSession: [] as string[] }]

const Account = z
  .object({
    wallet: z.string(),
    attested: z.boolean(),
    freePerDay: z.number().int().openapi({ description: "today's free messages at this holding" }),
    freeLeft: z.number().int(),
    credits: z.number().int(),
    creditsPerMessage: z.number().int(),
    holdingUsd: z
      .string()
      .openapi({ description: 'the holding at the oracle price, dollars and cents' }),
    nextTier: z
      .object({ freePerDay: z.number().int(), moreUsd: z.string() })
      .nullable()
      .openapi({ description: 'what the next tier gives and how much more holding it needs' }),
    resetsAt: z.string().openapi({ format: 'date-time', description: 'the next 00:00 UTC' }),
    draft: ChatDraft,
    skipped: z.array(z.string()),
    question: z
      .string()
      .nullable()
      .openapi({ description: "the interview's next question; null when the draft is complete" }),
    review: ChatReview,
    escalation: ChatEscalation,
  })
  .openapi('ChatAccount')

/** How many lines of the conversation the page gets back at most (the newest). */
export const CHAT_HISTORY_LINES = 100

const Conversation = z
  .object({
    messages: z
      .array(
        z.object({
          role: z.enum(['human', 'matchmaker']),
          text: z.string(),
          at: z.string().openapi({ format: 'date-time' }),
        }),
      )
      .openapi({
        description: `the signed-in wallet's own lines with the matchmaker, newest last (at most ${CHAT_HISTORY_LINES})`,
      }),
    more: z
      .boolean()
      .openapi({ description: 'older lines inside the window were left out (past the bound)' }),
    limit: z.number().int().openapi({ description: 'the most lines answered' }),
    retentionHours: z
      .number()
      .int()
      .openapi({ description: 'lines older than this are deleted (VENUE_CHAT_RETENTION_HOURS)' }),
  })
  .openapi('ChatConversation')

/** The human chat page and the account it shows; the page's actions are its capabilities' routes. */
export const registerChatPageRoutes = (app: VenueApp, deps: VenueDeps) => {
  const pagePath = document(app, {
    method: 'get',
    path: '/chat',
    limit: LIMIT.read,
    summary:
      'The human chat page: sign in with a wallet, attest 18+, talk with the matchmaker (HTML)',
    security: [],
    responses: { 200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } } },
  })
  app.get(pagePath, (c) => {
    const { nonce, headers } = scriptPage(c)
    return c.html(chatPage({ nonce }), 200, headers)
  })

  const mePath = document(app, {
    method: 'get',
    path: '/api/chat/me',
    limit: LIMIT.read,
    summary: "The signed-in wallet: attestation, today's free messages, credits, the holding tier",
    security: chatSession,
    responses: {
      200: json(Account, 'the account at a glance'),
      ...errors({ 401: CHAT_ERRORS.signInRequired }),
    },
  })
  app.get(mePath, requireChatWallet(deps), async (c) => {
    const { wallet, attested } = chatWalletOf(c)
    c.header('cache-control', 'no-store')
    return c.json(await chatAccount(deps, wallet, attested))
  })

  const messagesPath = document(app, {
    method: 'get',
    path: '/api/chat/messages',
    limit: LIMIT.read,
    summary: `The signed-in wallet's recent conversation with the matchmaker: its last ${CHAT_HISTORY_LINES} lines inside the retention window, newest last`,
    security: chatSession,
    responses: {
      200: json(Conversation, 'the recent conversation'),
      ...errors({ 401: CHAT_ERRORS.signInRequired, 403: CHAT_ERRORS.attestationRequired }),
    },
  })
  app.get(messagesPath, requireChatWallet(deps, { adult: true }), async (c) => {
    const { wallet } = chatWalletOf(c)
    const retentionHours = deps.humanChat.retentionHours
    const { messages, more } = await readExchanges(deps, wallet, {
      windowHours: retentionHours,
      limit: CHAT_HISTORY_LINES,
    })
    c.header('cache-control', 'no-store')
    return c.json({ messages, more, limit: CHAT_HISTORY_LINES, retentionHours })
  })
}
