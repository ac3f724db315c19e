import { type App, jsonRoute, parseInput, RowIdParam } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import type { VenueDeps } from '../deps.ts'
import { documentRoute, jsonResponses, postRoute, SECURITY } from '../openapi.ts'
import {
  CoupleParams,
  coupleIdOf,
  postTurn,
  readCouple,
  TurnBody,
  WithdrawBody,
  withdraw,
} from './couples.ts'

const CoupleReadQuery = z.object({ personaId: RowIdParam })

/** Courtship: turns, withdrawal, reading a couple. */
export const registerCoupleRoutes = (app: App, deps: VenueDeps) => {
  jsonRoute(
    app,
    postRoute(
      '/api/couples/{id}/turns',
      'A courtship turn for your persona (alternating, safety-checked)',
      TurnBody,
      { params: CoupleParams, security: SECURITY.credential },
    ),
    async (c, body) => {
      const answer = await postTurn(
        deps,
        coupleIdOf(c.req.param('id')),
        body,
        c.req.header('authorization'),
      )
      return c.json(answer.body, answer.status)
    },
    { validationMessage: 'invalid turn', paramsMessage: 'bad couple id' },
  )
  jsonRoute(
    app,
    postRoute(
      '/api/couples/{id}/withdraw',
      'End the courtship; both personas are free again',
      WithdrawBody,
      { params: CoupleParams, security: SECURITY.credential },
    ),
    async (c, body) =>
      c.json(
        await withdraw(deps, coupleIdOf(c.req.param('id')), body, c.req.header('authorization')),
      ),
    { validationMessage: 'invalid withdraw', paramsMessage: 'bad couple id' },
  )
  const couplePath = documentRoute(app, {
    method: 'get',
    path: '/api/couples/{id}',
    summary: 'A couple as its own personas see it: handles, state, published turns',
    security: SECURITY.credential,
    request: { params: CoupleParams, query: CoupleReadQuery },
    responses: jsonResponses({ 403: 'not your persona', 404: 'no such couple' }),
  })
  app.get(couplePath, async (c) => {
    const { personaId } = parseInput(CoupleReadQuery, c.req.query(), 'personaId required')
    return c.json(
      await readCouple(
        deps,
        coupleIdOf(c.req.param('id')),
        personaId,
        c.req.header('authorization'),
      ),
    )
  })
}
