import {
  defineMcpTool,
  isRefusal,
  type McpCallContext,
  type McpTool,
  refusal,
  SafeText,
} from '@agents/service-kit'
import { z } from 'zod'
import type { SwapDeps } from './deps.ts'
import { CreateIntentBody, postIntent } from './intents/intents.ts'
import { bookClientKey } from './limits/book-client.ts'
import { getMatch, matchView, payChallenge } from './matches/matches.ts'
import { CreateOfferBody, ListOffersQuery } from './offers/offer-schemas.ts'
import { listOffers, offerView, postOffer } from './offers/offers.ts'
import { INVALID_ID, rowIdOf } from './row-ids.ts'

const MatchRef = z.object({ matchId: SafeText.describe('the match id from swap_create_intent') })

// The HTTP request's client, as the routes name it (always set: the app limits requests).
const poster = (client: McpCallContext['client']) => bookClientKey(client?.address ?? 'unknown')

/** The match a tool names, or the route's 404 (a made-up id as an unknown one). */
const findMatch = async (deps: SwapDeps, matchId: string) => {
  const id = rowIdOf(matchId, 'match')
  if (isRefusal(id)) return id
  return (await getMatch(deps, id)) ?? refusal(404, 'no such match')
}

/**
 * The five tools, calling the same functions (and the same schemas) as the
 * HTTP routes, each counted against its route's request limit.
 */
export const swapRailTools = (deps: SwapDeps): McpTool[] => [
  defineMcpTool({
    name: 'swap_list_offers',
    limit: 'read',
    title: 'List offers',
    description:
      'Open offers by default, cheapest first per model. Check here for an existing open offer before posting a redundant sell.',
    inputSchema: ListOffersQuery,
    validationMessage: 'invalid query',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (query) => ({
      offers: (await listOffers(deps, query)).map((row) => offerView(row, deps.fee)),
    }),
  }),
  defineMcpTool({
    name: 'swap_create_offer',
    limit: 'anonymous-write',
    title: 'Sell capacity',
    description:
      'Post an offer: endpoint (your https OpenAI-compatible base URL), payTo, model, mtok (whole MTok) and priceUsd (USD per MTok). Waiting intents that fit are matched at once.',
    inputSchema: CreateOfferBody(deps.limits),
    validationMessage: 'invalid offer',
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
    handler: (body, { client }) => postOffer(deps, { ...body, client: poster(client) }),
  }),
  defineMcpTool({
    name: 'swap_create_intent',
    limit: 'anonymous-write',
    title: 'Buy capacity',
    description:
      'Post an intent: model, mtok, maxPriceUsd (USD per MTok), optional buyer. Matched automatically with the cheapest open offer that fits; keep the match id secret.',
    inputSchema: CreateIntentBody(deps.limits),
    validationMessage: 'invalid intent',
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
    handler: (body, { client }) => postIntent(deps, { ...body, client: poster(client) }),
  }),
  defineMcpTool({
    name: 'swap_get_match',
    limit: 'read',
    title: 'Inspect a match',
    description:
      'A match and, once paid, its grant (bearer + seller endpoint). Each read during the redemption window gives a fresh short-lived grant.',
    inputSchema: MatchRef,
    validationMessage: INVALID_ID,
    annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false },
    handler: async ({ matchId }) => {
      const found = await findMatch(deps, matchId)
      return isRefusal(found) ? found : matchView(deps, found)
    },
  }),
  defineMcpTool({
    name: 'swap_pay_challenge',
    limit: 'challenge',
    title: 'Payment challenge of a match',
    description:
      "The single-payee challenge: one gross accept per rail pointing at the match's split (x402 on Base) and the MPP Tempo challenge. Settle it with your own signing tool, never with a key given to this server.",
    inputSchema: MatchRef,
    validationMessage: INVALID_ID,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: async ({ matchId }) => {
      const found = await findMatch(deps, matchId)
      if (isRefusal(found)) return found
      if (found.match.status !== 'awaiting_payment')
        return refusal(409, `match is ${found.match.status}: nothing to pay`)
      return payChallenge(deps, found)
    },
  }),
]
