import { errors, json, jsonRoute } from '@agents/service-kit'
import { createRoute } from '@hono/zod-openapi'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import type { VenueApp } from '../venue-env.ts'
import { CHAT_ERRORS } from '../wallet-session/chat-errors.ts'
import { chatWalletOf, requireChatWallet } from '../wallet-session/wallet-session.ts'
import { interviewTurn } from './drafts.ts'
import { DraftBody, DraftTurn } from './matchmaker-schemas.ts'
import { storeExchange } from './messages.ts'

const chatSession = [{ chatSession: [] as string[] }]

/** The offline interview: the signed-in human answers its questions into the draft doc (free). */
export const registerDraftRoutes = (app: VenueApp, deps: VenueDeps) => {
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/chat/draft',
      limit: LIMIT.write,
      summary:
        "The interview: answer its current question; the answer joins the draft when it passes the doc's rules (free)",
      security: chatSession,
      request: { body: json(DraftBody, 'the answer to the current question') },
      responses: {
        200: json(
          DraftTurn,
          'accepted (the next question), or refused (why, and the question again)',
        ),
        ...errors({
          400: 'invalid answer',
          401: CHAT_ERRORS.signInRequired,
          403: `${CHAT_ERRORS.attestationRequired}; ${CHAT_ERRORS.crossSite}`,
          415: 'not JSON',
        }),
      },
    }),
    async (c, body) => {
      const { wallet } = chatWalletOf(c)
      const turn = await interviewTurn(deps.database, wallet, body.answer)
      // An accepted turn joins the conversation the page shows again; a refused one (contact
      // details, a broken rule) is not kept.
      if (turn.accepted) await storeExchange(deps, wallet, body.answer, turn.reply)
      return c.json(turn)
    },
    { validationMessage: 'invalid answer', middleware: [requireChatWallet(deps, { adult: true })] },
  )
}
