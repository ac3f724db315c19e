import { type App, jsonRoute } from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import { streamSSE } from 'hono/streaming'
import { PersonaBody, submitPersona } from './admission/admission.ts'
import { AgentBody, registerAgent, VerifyBody, verifyAgent } from './agents/agents.ts'
import { boardsClosed, PostBody, postToBoard, readBoard, readFloor } from './boards/boards.ts'
import {
  coupleIdOf,
  postTurn,
  readCouple,
  TurnBody,
  WithdrawBody,
  withdraw,
} from './courtship/couples.ts'
import type { VenueDeps } from './deps.ts'
import { getClientAddress } from './geo/index.ts'
import { HeartFileBody, submitHeartFile } from './intake/heart-file.ts'
import { fileReport, ReportBody } from './reports/reports.ts'

const Any = z.object({}).passthrough()
const post = <schema extends z.ZodType>(path: string, summary: string, schema: schema) =>
  createRoute({
    method: 'post',
    path,
    summary,
    request: { body: { content: { 'application/json': { schema } } } },
    responses: { 200: { description: 'done', content: { 'application/json': { schema: Any } } } },
  })

const FLOOR_POLL_MS = 1000

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
    post('/api/intake/agent', 'Register an agent endpoint: returns its challenge nonce', AgentBody),
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
    post('/api/personas', 'Enter a persona: adult gate, chaperone, capacity', PersonaBody),
    async (c, body) => {
      const answer = await submitPersona(deps, body, c.req.header('authorization'))
      return c.json(answer.body, answer.status)
    },
    { validationMessage: 'invalid persona' },
  )
  jsonRoute(
    app,
    post('/api/report', 'Report a persona, post, turn or couple', ReportBody),
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
    post('/api/boards/{board}', 'Post to seeking or debriefs for your persona', PostBody),
    async (c, body) => {
      const answer = await postToBoard(
        deps,
        c.req.param('board') ?? '',
        body,
        c.req.header('authorization'),
      )
      return c.json(answer.body, answer.status)
    },
    { validationMessage: 'invalid post' },
  )

  jsonRoute(
    app,
    post(
      '/api/couples/{id}/turns',
      'A courtship turn for your persona (alternating, safety-checked)',
      TurnBody,
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
    { validationMessage: 'invalid turn' },
  )
  jsonRoute(
    app,
    post(
      '/api/couples/{id}/withdraw',
      'End the courtship; both personas are free again',
      WithdrawBody,
    ),
    async (c, body) =>
      c.json(
        await withdraw(deps, coupleIdOf(c.req.param('id')), body, c.req.header('authorization')),
      ),
    { validationMessage: 'invalid withdraw' },
  )
  app.get('/api/couples/:id', async (c) => {
    const personaId = Number(c.req.query('personaId'))
    if (!Number.isInteger(personaId) || personaId <= 0)
      return c.json({ error: 'personaId required' }, 400)
    return c.json(
      await readCouple(
        deps,
        coupleIdOf(c.req.param('id')),
        personaId,
        c.req.header('authorization'),
      ),
    )
  })
  app.get('/.well-known/jwks.json', (c) => c.json(deps.signer.jwks))

  app.get('/api/boards/:board', async (c) => {
    if (!(await deps.settings.venueOpen())) throw boardsClosed()
    return c.json(await readBoard(deps, c.req.param('board')))
  })

  app.get('/api/floor', async (c) => {
    if (!(c.req.header('accept') ?? '').includes('text/event-stream'))
      return c.json({ items: await readFloor(deps) })
    return streamSSE(c, async (stream) => {
      // Every replica can serve the stream: it polls the tables for what is
      // newer than what it has sent (ids only grow).
      const initial = await readFloor(deps)
      let afterTurn = Math.max(0, ...initial.filter((i) => i.kind === 'turn').map((i) => i.id))
      let afterPost = Math.max(0, ...initial.filter((i) => i.kind === 'post').map((i) => i.id))
      for (const item of [...initial].reverse())
        await stream.writeSSE({
          event: item.kind,
          id: `${item.kind}-${item.id}`,
          data: JSON.stringify(item),
        })
      while (!stream.aborted && !stream.closed) {
        await stream.sleep(FLOOR_POLL_MS)
        // The database going away (shutdown) ends the stream; the client reconnects elsewhere.
        const fresh = await readFloor(deps, { afterTurn, afterPost }).catch(() => undefined)
        if (!fresh) break
        for (const item of [...fresh].reverse()) {
          if (item.kind === 'turn') afterTurn = Math.max(afterTurn, item.id)
          else afterPost = Math.max(afterPost, item.id)
          await stream.writeSSE({
            event: item.kind,
            id: `${item.kind}-${item.id}`,
            data: JSON.stringify(item),
          })
        }
        if (fresh.length === 0) await stream.writeSSE({ event: 'ping', data: '{}' })
      }
    })
  })
}
