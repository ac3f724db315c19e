import { type App, jsonRoute, parseInput } from '@agents/service-kit'
import type { VenueDeps } from '../deps.ts'
import { documentRoute, jsonResponses, postRoute, SECURITY } from '../openapi.ts'
import { BoardParams, boardsClosed, PostBody, postToBoard, readBoard } from './boards.ts'

/** The boards: posting and reading. */
export const registerBoardRoutes = (app: App, deps: VenueDeps) => {
  jsonRoute(
    app,
    postRoute('/api/boards/{board}', 'Post to seeking or debriefs for your persona', PostBody, {
      params: BoardParams,
      security: SECURITY.credential,
    }),
    async (c, body, { params }) => {
      const answer = await postToBoard(deps, params.board, body, c.req.header('authorization'))
      return c.json(answer.body, answer.status)
    },
    { validationMessage: 'invalid post', paramsMessage: 'invalid board' },
  )

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
}
