import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { z } from 'zod'
import { createApp } from './create-app.ts'
import { ApiError } from './errors.ts'
import { createLogger } from './logger.ts'
import { defineMcpTool, mountMcp } from './mcp.ts'
import { refusal } from './refusal.ts'
import type { RunningServer } from './serve.ts'
import { startTestServer } from './testing.ts'

const app = createApp({
  name: 'mcp-test',
  version: '1.0.0',
  logger: createLogger({ name: 't', level: 'silent' }),
})
mountMcp(app, {
  name: 'mcp-test',
  version: '1.0.0',
  tools: [
    defineMcpTool({
      name: 'add',
      title: 'Add',
      description: 'adds two integers',
      inputSchema: z.object({ a: z.number().int(), b: z.number().int() }).strict(),
      annotations: { readOnlyHint: true },
      validationMessage: 'invalid sum',
      handler: ({ a, b }) => {
        if (a < 0) throw new ApiError(400, 'negative', { field: 'a' })
        if (b < 0) return refusal(422, 'negative', { field: 'b' })
        return { sum: a + b }
      },
    }),
    defineMcpTool({
      name: 'fail',
      title: 'Fail',
      description: 'throws what it is asked to',
      inputSchema: z.object({ kind: z.enum(['fault', 'unreachable']) }),
      handler: ({ kind }) => {
        if (kind === 'unreachable')
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
            code: 'ECONNREFUSED',
          })
        throw new Error('Failed query: insert into people values ($1)\nparams: private text')
      },
    }),
  ],
})

let server: RunningServer
let client: Client
beforeAll(async () => {
  server = await startTestServer(app)
  client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)))
})
afterAll(async () => {
  await client.close()
  await server.close()
})

test('default: tools are listed with their annotations', async () => {
  const { tools } = await client.listTools()
  expect(tools.map((tool) => tool.name)).toEqual(['add', 'fail'])
  expect(tools[0]!.annotations?.readOnlyHint).toBe(true)
  expect(tools[0]!.inputSchema.required).toEqual(['a', 'b'])
})

test('behavior: a call returns structured content', async () => {
  const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })
  expect(result.structuredContent).toEqual({ sum: 5 })
})

test('behavior: ApiError, a returned Refusal and bad arguments are tool errors, not transport errors', async () => {
  const refused = await client.callTool({ name: 'add', arguments: { a: -1, b: 3 } })
  expect(refused.isError).toBe(true)
  expect(JSON.parse((refused.content as Array<{ text: string }>)[0]!.text)).toEqual({
    error: 'negative',
    field: 'a',
  })
  const returned = await client.callTool({ name: 'add', arguments: { a: 1, b: -3 } })
  expect(returned.isError).toBe(true)
  expect(returned.structuredContent).toBeUndefined()
  expect((returned.content as Array<{ text: string }>)[0]!.text).toBe(
    '{"field":"b","error":"negative"}',
  )
  const invalid = await client.callTool({ name: 'add', arguments: { a: 'x' } })
  expect(invalid.isError).toBe(true)
})

test('behavior: bad arguments carry the route 400 body: its message and zod issues', async () => {
  const invalid = await client.callTool({ name: 'add', arguments: { a: 'x', b: 1 } })
  expect(invalid.isError).toBe(true)
  const body = JSON.parse((invalid.content as Array<{ text: string }>)[0]!.text)
  expect(body.error).toBe('invalid sum')
  expect(body.issues[0]).toMatchObject({ path: ['a'], code: 'invalid_type' })
  const unknown = await client.callTool({ name: 'nope', arguments: {} })
  expect(unknown.isError).toBe(true)
  expect(JSON.parse((unknown.content as Array<{ text: string }>)[0]!.text)).toEqual({
    error: 'unknown tool: nope',
  })
})

test('behavior: a fault is `internal`, an unreachable database the 503 message; no driver text', async () => {
  const text = async (kind: string) => {
    const result = await client.callTool({ name: 'fail', arguments: { kind } })
    expect(result.isError).toBe(true)
    return (result.content as Array<{ text: string }>)[0]!.text
  }
  expect(await text('fault')).toBe('{"error":"internal"}')
  expect(await text('unreachable')).toBe('{"error":"service unavailable: retry shortly"}')
})

test('behavior: GET /mcp is 405 with Allow: POST', async () => {
  const response = await fetch(`${server.url}/mcp`)
  expect(response.status).toBe(405)
  expect(response.headers.get('allow')).toBe('POST')
})

test('behavior: a notification is answered 202 with no body, as /openapi.json says', async () => {
  const response = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  })
  expect(response.status).toBe(202)
  expect(await response.text()).toBe('')
  const document = await (await fetch(`${server.url}/openapi.json`)).json()
  expect(Object.keys(document.paths['/mcp'].post.responses)).toContain('202')
})
