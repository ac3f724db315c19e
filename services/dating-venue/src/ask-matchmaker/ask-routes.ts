import { saleResponse } from '@agents/payments'
import { answerOf, errors, json, jsonRoute } from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import { getCookie } from 'hono/cookie'
import { clientKeyOf } from '../budget/client-key.ts'
import { credentialOf, requireCredential } from '../credentials/actor-middleware.ts'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { itemPrice, paidNote } from '../orders/paid-item-text.ts'
import { PaymentChallenge } from '../orders/payment-answers.ts'
import type { VenueApp, VenueMiddleware, VenueVariables } from '../venue-env.ts'
import { CHAT_COOKIE, chatWalletOf, requireChatWallet } from '../wallet-session/wallet-session.ts'
import { askAsAgent, askAsHuman, type PaidAsk, paidAskAnswer } from './ask.ts'
import { askItem } from './ask-item.ts'
import { Answer, AskBody } from './matchmaker-schemas.ts'

/** What `resolveAsker` sets: who asks, besides what the chat-wallet or credential middleware sets. */
export type AskerVariables = Pick<VenueVariables, 'asker'>

/** Either a human's chat session or a venue credential. */
const ASK_SECURITY: Array<Record<string, string[]>> = [{ chatSession: [] }, { credential: [] }]

/** A chat session (a human) when the cookie is there, else a venue credential (an agent, paying). */
const resolveAsker = (deps: VenueDeps): VenueMiddleware => {
  const human = requireChatWallet(deps, { adult: true })
  const agent = requireCredential(deps, 'asking the matchmaker')
  return async function askerResolved(c, next) {
    if (getCookie(c, CHAT_COOKIE) !== undefined) {
      c.set('asker', 'human')
      return human(c, next)
    }
    c.set('asker', 'agent')
    return agent(c, next)
  }
}

/** A paid answer as HTTP: its refusal before the 402, or the sale's outcome. */
const paidAnswer = (paid: PaidAsk, answer: ReturnType<typeof paidAskAnswer>) =>
  saleResponse(answerOf(paid).outcome, { answer })

/** Asking the matchmaker: humans on the chat page and agents (paid). */
export const registerChatAskRoutes = (app: VenueApp, deps: VenueDeps) => {
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: askItem.path,
      // The matchmaker's model.
      limit: LIMIT.outbound,
      summary: `One answer of the matchmaker (humans: free messages, then credits, then ${itemPrice(askItem)}; agents: ${paidNote(askItem)})`,
      description:
        "A signed-in adult (chat session cookie) spends today's free messages (by studio token holding), then credits (3 a message), then pays. An agent (venue credential) pays every answer. Messages and answers pass the safety check; a withheld one counts as used; one the venue failed to answer does not.",
      security: ASK_SECURITY,
      request: { body: json(AskBody, 'the message') },
      responses: {
        200: json(Answer, 'the answer, or why it was withheld'),
        402: json(PaymentChallenge, 'payment required, or `payment not verified` with the reason'),
        422: json(
          z.object({ error: z.string(), reason: z.string() }),
          'a message to pay for that the safety check withholds: refused, nothing charged',
        ),
        502: json(
          z.object({ error: z.string(), orderId: z.string(), credited: z.number().int() }).strict(),
          'paid, but the matchmaker could not answer: credited',
        ),
        ...errors({
          400: 'invalid message',
          401: 'sign in with your wallet first, or credential required',
          403: 'attest that you are 18 or older first; cross-site request refused; credential not recognised',
          415: 'not JSON',
          503: 'the matchmaker could not answer (nothing counted), the outbound budget is spent (Retry-After; nothing counted or charged), or payment outcome unknown',
        }),
      },
    }),
    async (c, body) => {
      if (c.get('asker') === 'human') {
        const { wallet } = chatWalletOf(c)
        const outcome = await askAsHuman(deps, {
          wallet,
          message: body.message,
          request: c.req.raw,
          client: clientKeyOf(c, deps),
        })
        const asked = answerOf(outcome)
        if (asked.kind === 'paid') return paidAnswer(asked.paid, paidAskAnswer(deps, wallet))
        return c.json(asked.body, 200)
      }
      const actor = credentialOf(c)
      const endpointId = actor.kind === 'agent' ? actor.endpoint.id : -actor.owner.id
      const paid = await askAsAgent(deps, { endpointId, message: body.message, request: c.req.raw })
      return paidAnswer(paid, paidAskAnswer(deps))
    },
    { validationMessage: 'invalid message', middleware: [resolveAsker(deps)] },
  )
}
