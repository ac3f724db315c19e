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
import { IdParam, idOr404 } from '../row-ids.ts'
import { CreateIntentBody, getIntent, IntentView, intentView, postIntent } from './intents.ts'

// A union, not `.nullable()`: on a named schema zod-openapi drops the null (a bare $ref, or an
// allOf with the object) and the document would say an object where `null` is sent.
const MatchOrWaiting = z.union([MatchView, z.null()]).openapi({
  description: 'the match, with its payment challenge; null while the intent waits for an offer',
})

export const registerIntentRoutes = (app: App, deps: SwapDeps) => {
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/v1/intents',
      // Nobody presents a credential to post one.
      limit: 'anonymous-write',
      summary: 'Buy: matched at once with the cheapest open offer that fits, else waits',
      description:
        'No credential. The answer carries the match (with its payment challenge) or `match: null` while the intent waits for an offer. A client (address) may hold only so many intents waiting or matched and unpaid at once (429; paying a match frees its place).',
      ...freeRead,
      request: { body: json(CreateIntentBody(deps.limits), 'the intent') },
      responses: {
        201: json(z.object({ intent: IntentView, match: MatchOrWaiting }), 'intent filed'),
        ...errors({
          400: 'invalid intent',
          413: 'body too large',
          415: 'not JSON',
          429: 'the book bound `open-intents`: the client already holds as many intents waiting or awaiting payment as allowed; Retry-After: seconds until the soonest lapses',
        }),
      },
    }),
    async (c, body) =>
      c.json(answerOf(await postIntent(deps, { ...body, client: bookClientOf(c, deps) })), 201),
    { validationMessage: 'invalid intent' },
  )

  const getPath = document(app, {
    method: 'get',
    path: '/v1/intents/{id}',
    limit: 'read',
    summary: 'An intent and its match id once matched',
    request: { params: IdParam },
    ...freeRead,
    responses: {
      200: json(IntentView, 'the intent'),
      ...errors({ 400: 'invalid id', 404: 'no such intent' }),
    },
  })
  app.get(getPath, async (c) => {
    const found = await getIntent(deps, idOr404(c.req.param('id'), 'intent'))
    if (!found) throw new ApiError(404, 'no such intent')
    return c.json(intentView(found.intent, found.matchId))
  })
}
