import {
  ApiError,
  type App,
  answerOf,
  document,
  errors,
  freeRead,
  json,
  jsonRoute,
} from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import type { SwapDeps } from '../deps.ts'
import { bookClientOf } from '../limits/book-client.ts'
import { MatchView } from '../matches/match-schemas.ts'
import { IdParam, INVALID_ID, idOr404 } from '../row-ids.ts'
import { CancelOfferBody, CreateOfferBody, ListOffersQuery, OfferView } from './offer-schemas.ts'
import { cancelMessage, cancelOffer, getOffer, listOffers, offerView, postOffer } from './offers.ts'

const OfferWithCancelMessage = OfferView.extend({
  cancelMessage: z.string().openapi({ description: 'what payTo signs to cancel the offer' }),
})

export const registerOfferRoutes = (app: App, deps: SwapDeps) => {
  const listPath = document(app, {
    method: 'get',
    path: '/v1/offers',
    summary: 'List offers (free read): open ones by default, cheapest first per model',
    limit: 'read',
    request: { query: ListOffersQuery },
    ...freeRead,
    responses: {
      200: json(z.object({ offers: z.array(OfferView) }), 'offers'),
      ...errors({ 400: 'bad query' }),
    },
  })
  app.get(listPath, async (c) => {
    const query = ListOffersQuery.safeParse(c.req.query())
    if (!query.success) throw new ApiError(400, 'invalid query', { issues: query.error.issues })
    const rows = await listOffers(deps, query.data)
    return c.json({ offers: rows.map((row) => offerView(row, deps.fee)) })
  })

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/v1/offers',
      summary: 'Sell capacity; waiting intents that fit are matched at once',
      // Nobody presents a credential to post one.
      limit: 'anonymous-write',
      description:
        'No credential: the offer pays its own payTo, and only payTo can cancel it. The book is bounded: a payTo, and a poster (address), may have only so many open offers at once (429; cancelling one frees a place at once).',
      ...freeRead,
      request: { body: json(CreateOfferBody(deps.limits), 'the offer') },
      responses: {
        201: json(z.object({ offer: OfferView, matches: z.array(MatchView) }), 'offer posted'),
        ...errors({
          400: 'invalid offer',
          413: 'body too large',
          415: 'not JSON',
          429: 'a book bound: the payTo (`open-offers-per-seller`) or the poster (`open-offers-per-client`) already has as many open offers as allowed; Retry-After: seconds until the soonest expires',
        }),
      },
    }),
    async (c, body) =>
      c.json(answerOf(await postOffer(deps, { ...body, client: bookClientOf(c, deps) })), 201),
    { validationMessage: 'invalid offer' },
  )

  const getPath = document(app, {
    method: 'get',
    path: '/v1/offers/{id}',
    limit: 'read',
    summary: 'One offer (free read)',
    request: { params: IdParam },
    ...freeRead,
    responses: {
      200: json(OfferWithCancelMessage, 'the offer, with the message payTo signs to cancel it'),
      ...errors({ 400: INVALID_ID, 404: 'no such offer' }),
    },
  })
  app.get(getPath, async (c) => {
    const offer = await getOffer(deps, idOr404(c.req.param('id'), 'offer'))
    if (!offer) throw new ApiError(404, 'no such offer')
    return c.json({ ...offerView(offer, deps.fee), cancelMessage: cancelMessage(offer.id) })
  })

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/v1/offers/{id}/cancel',
      // A write signed by payTo (the route checks the signature).
      limit: 'write',
      summary: "Cancel an open offer with payTo's EIP-191 signature over its cancel message",
      description:
        'The message is `Cancel swap-rail offer <id>` (also served as `cancelMessage` by GET /v1/offers/{id}). Matches already formed stay payable.',
      request: { params: IdParam, body: json(CancelOfferBody, 'the signature') },
      responses: {
        200: json(OfferView, 'cancelled'),
        ...errors({
          400: 'invalid cancel, or invalid id',
          403: 'not signed by payTo',
          404: 'no such offer',
          409: 'offer not open',
        }),
      },
    }),
    async (c, body) => {
      const result = await cancelOffer(
        deps,
        idOr404(c.req.param('id') ?? '', 'offer'),
        body.signature as `0x${string}`,
      )
      return c.json(offerView(answerOf(result).offer, deps.fee), 200)
    },
    { validationMessage: 'invalid cancel', paramsMessage: INVALID_ID },
  )
}
