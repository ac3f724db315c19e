import { createRoute, z } from '@hono/zod-openapi'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createApp } from './create-app.ts'
import { jsonRoute } from './json-route.ts'
import { createLogger } from './logger.ts'
import { ROW_ID_MAX, RowId, RowIdParam } from './row-id.ts'
import { NUL_MESSAGE, SafeText } from './safe-text.ts'
import type { RunningServer } from './serve.ts'
import { postJson, startTestServer } from './testing.ts'

describe('SafeText and RowId', () => {
  test('SafeText refuses U+0000 anywhere and keeps the checks chained after it', () => {
    const Handle = SafeText.trim().min(1).max(8)
    expect(Handle.parse('  ok ')).toBe('ok')
    const refused = Handle.safeParse('a\u0000b')
    expect(refused.success).toBe(false)
    expect(refused.error?.issues.map((issue) => issue.message)).toEqual([NUL_MESSAGE])
    expect(Handle.safeParse('\u0000'.repeat(9)).error?.issues).toHaveLength(2)
    expect(SafeText.regex(/^\S+$/).safeParse('x\u0000').success).toBe(false)
  })

  test('RowId is the int4 range: 1 to 2^31 - 1', () => {
    expect(RowId.parse(ROW_ID_MAX)).toBe(2 ** 31 - 1)
    for (const bad of [0, -1, 2 ** 31, 1.5, Number.MAX_SAFE_INTEGER, '1'])
      expect(RowId.safeParse(bad).success).toBe(false)
    expect(RowIdParam.parse('42')).toBe(42)
    for (const bad of ['', '0', '-3', '2147483648', 'abc', '1.5', '\u0000'])
      expect(RowIdParam.safeParse(bad).success).toBe(false)
  })
})

describe('jsonRoute parses path params and query by their schemas', () => {
  const app = createApp({
    name: 'params-test',
    version: '1.0.0',
    logger: createLogger({ name: 't', level: 'silent' }),
  })
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/boards/{board}/items/{id}',
      request: {
        params: z.object({ board: SafeText.max(40), id: RowIdParam }),
        query: z.object({ personaId: RowIdParam.optional() }),
        body: { content: { 'application/json': { schema: z.object({ text: SafeText }) } } },
      },
      responses: { 200: { description: 'echo' } },
    }),
    (c, body, { params, query }) => c.json({ body, params, query }),
    { validationMessage: 'invalid item', paramsMessage: 'invalid path' },
  )
  jsonRoute(
    app,
    createRoute({
      method: 'get',
      path: '/boards/{board}',
      request: { params: z.object({ board: SafeText }) },
      responses: { 200: { description: 'the board' } },
    }),
    (c, body, { params }) => c.json({ body: body ?? null, board: params.board }),
  )
  let server: RunningServer
  beforeAll(async () => {
    server = await startTestServer(app)
  })
  afterAll(() => server.close())

  test('valid parts reach the handler parsed', async () => {
    const answer = await postJson(`${server.url}/boards/seeking/items/7?personaId=3`, {
      text: 'hi',
    })
    expect(answer.json).toEqual({
      body: { text: 'hi' },
      params: { board: 'seeking', id: 7 },
      query: { personaId: 3 },
    })
    const read = await fetch(`${server.url}/boards/seeking`)
    expect(await read.json()).toEqual({ body: null, board: 'seeking' })
  })

  test.each([
    ['U+0000 in a path param', '/boards/a%00b/items/7', 'board'],
    ['an id over int4 in the path', '/boards/seeking/items/2147483648', 'id'],
    ['an id over int4 in the query', '/boards/seeking/items/7?personaId=9999999999', 'personaId'],
  ])('%s is a 400 naming the param', async (_, path, field) => {
    const answer = await postJson(`${server.url}${path}`, { text: 'hi' })
    expect(answer.status).toBe(400)
    expect(answer.json.error).toBe('invalid path')
    expect(answer.json.issues[0].path).toEqual([field])
  })

  test('U+0000 in the body is a 400 with the issue', async () => {
    const answer = await postJson(`${server.url}/boards/seeking/items/7`, { text: 'a\u0000' })
    expect(answer.status).toBe(400)
    expect(answer.json).toMatchObject({
      error: 'invalid item',
      issues: [{ path: ['text'], message: NUL_MESSAGE }],
    })
    const read = await fetch(`${server.url}/boards/%00`)
    expect(read.status).toBe(400)
  })
})
