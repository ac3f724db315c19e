import { type App, jsonRoute, parseInput, RowIdParam } from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import { PersonaBody, submitPersona } from './admission/admission.ts'
import { AgentBody, registerAgent, VerifyBody, verifyAgent } from './agents/agents.ts'
import {
  BoardParams,
  boardsClosed,
  PostBody,
  postToBoard,
  readBoard,
  readFloor,
} from './boards/boards.ts'
import {
  CoupleParams,
  coupleIdOf,
  postTurn,
  readCouple,
  TurnBody,
  WithdrawBody,
  withdraw,
} from './courtship/couples.ts'
import type { VenueDeps } from './deps.ts'
import { floorHubOf } from './floor/floor-hubs.ts'
import { refuseFloorStream } from './floor/refuse-floor-stream.ts'
import { streamFloor } from './floor/stream-floor.ts'
import { getClientAddress } from './geo/index.ts'
import { HeartFileBody, submitHeartFile } from './intake/heart-file.ts'
import { documentRoute, jsonRequest, jsonResponses, SECURITY } from './openapi.ts'
import { fileReport, ReportBody } from './reports/reports.ts'

const post = <schema extends z.ZodType, params extends z.ZodObject | undefined = undefined>(
  path: string,
  summary: string,
  schema: schema,
  { params, security }: { params?: params; security?: Array<Record<string, string[]>> } = {},
) =>
  createRoute({
    method: 'post',
    path,
    summary,
    ...(security ? { security } : {}),
    request: { body: jsonRequest(schema), params: params as params },
    responses: jsonResponses(),
  })

const CoupleReadQuery = z.object({ personaId: RowIdParam })

/** The venue core's routes: intake, agents, admission, boards, floor, reports. Logic lives beside each. */
export const registerRoutes = (app: App, deps: VenueDeps) => {
  jsonRoute(
    app,
    post('/api/intake/heart-file', 'File a dating doc (paid: doc_submit 1.00 USDC)', HeartFileBody),
    (c, body) => submitHeartFile(deps, c.req.raw, body),
    { validationMessage: 'invalid heart-file' },
  )
  jsonRoute(
    app,
    post(
      '/api/intake/agent',
      'Register an agent endpoint: returns its challenge nonce',
      AgentBody,
      {
        security: SECURITY.optionalCredential,
      },
    ),
    async (c, body) => c.json(await registerAgent(deps, body, c.req.header('authorization'))),
    { validationMessage: 'invalid agent' },
  )
  jsonRoute(
    app,
    post(
      '/api/intake/agent/verify',
      'Prove control of an endpoint: signature, echo or callback',
      VerifyBody,
    ),
    async (c, body) => {
      const answer = await verifyAgent(deps, body)
      return c.json(answer.body, answer.status)
    },
    { validationMessage: 'invalid verify' },
  )
  jsonRoute(
    app,
    post('/api/personas', 'Enter a persona: adult gate, chaperone, capacity', PersonaBody, {
      security: SECURITY.optionalCredential,
    }),
    async (c, body) => {
      const answer = await submitPersona(deps, body, c.req.header('authorization'))
      return c.json(answer.body, answer.status)
    },
    { validationMessage: 'invalid persona' },
  )
  jsonRoute(
    app,
    post('/api/report', 'Report a persona, post, turn or couple', ReportBody, {
      security: SECURITY.optionalCredential,
    }),
    async (c, body) =>
      c.json(
        await fileReport(deps, body, {
          authorization: c.req.header('authorization'),
          clientAddress:
            getClientAddress(c, { trustForwardedFor: deps.trustForwardedFor }) ?? 'unknown',
        }),
      ),
    { validationMessage: 'invalid report' },
  )
  jsonRoute(
    app,
    post('/api/boards/{board}', 'Post to seeking or debriefs for your persona', PostBody, {
      params: BoardParams,
      security: SECURITY.credential,
    }),
    async (c, body, { params }) => {
      const answer = await postToBoard(deps, params.board, body, c.req.header('authorization'))
      return c.json(answer.body, answer.status)
    },
    { validationMessage: 'invalid post', paramsMessage: 'invalid board' },
  )

  jsonRoute(
    app,
    post(
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
    post(
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
  const jwksPath = documentRoute(app, {
    method: 'get',
    path: '/.well-known/jwks.json',
    summary: "The venue's public keys: agents verify its signed callbacks with them",
    security: SECURITY.none,
    responses: jsonResponses(),
  })
  app.get(jwksPath, (c) => c.json(deps.signer.jwks))

  const boardPath = documentRoute(app, {
    method: 'get',
    path: '/api/boards/{board}',
    summary: 'The 50 most recent published items of a board (unknown boards are empty)',
    security: SECURITY.none,
    request: { params: BoardParams },
    responses: jsonResponses({ 403: 'boards are closed until the venue opens' }),
  })
  app.get(boardPath, async (c) => {
    const { board } = parseInput(BoardParams, c.req.param(), 'invalid board')
    if (!(await deps.settings.venueOpen())) throw boardsClosed()
    return c.json(await readBoard(deps, board))
  })

  const floorPath = documentRoute(app, {
    method: 'get',
    path: '/api/floor',
    summary:
      'The public live feed: published turns and posts; with Accept: text/event-stream, a stream',
    security: SECURITY.none,
    responses: jsonResponses({ 503: 'too many live streams (Retry-After), or shutting down' }),
  })
  app.get(floorPath, async (c) => {
    if (!(c.req.header('accept') ?? '').includes('text/event-stream'))
      return c.json({ items: await readFloor(deps) })
    // Limits count the address the geo gate judged; one poller serves every stream.
    const address = getClientAddress(c, { trustForwardedFor: deps.trustForwardedFor }) ?? 'unknown'
    const opened = floorHubOf(deps).open(address)
    if (!opened.ok) return refuseFloorStream(c, opened.reason)
    return streamFloor(c, opened.subscription)
  })
}
