import { z } from '@hono/zod-openapi'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CallToolRequestSchema, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import { HTTPException } from 'hono/http-exception'
import { type App, baseApp } from './app-type.ts'
import { ApiError, errorBody } from './errors.ts'
import type { Client, TakeLimit } from './limits/client.ts'
import { limitHeaders, tooManyRequestsResponse } from './limits/limit-requests.ts'
import type { LimitDecision } from './limits/limits.ts'
import { LIMIT_HEADERS } from './limits/openapi-limits.ts'
import type { Logger } from './logger.ts'
import { document, errors, json } from './openapi.ts'
import { isRefusal, refusalBody } from './refusal.ts'
import { sanitizeError } from './sanitize-error.ts'
import { isUnavailable } from './unavailable.ts'

export type McpTool<input extends z.ZodObject = z.ZodObject> = {
  name: string
  title: string
  description: string
  inputSchema: input
  annotations?: ToolAnnotations
  /** The `error` of the tool error for arguments that fail `inputSchema`: the HTTP route's 400 message. */
  validationMessage?: string
  /** The request limit a call counts against, as its HTTP route does (`mountMcp`'s `limits`). */
  limit?: string
  /** Returns the tool's JSON result; a `Refusal` it returns (or an `ApiError` it throws) becomes an MCP tool error. */
  handler: (input: z.output<input>, context: McpCallContext) => unknown | Promise<unknown>
}

/** What a tool knows of the HTTP request that carried it. */
export type McpCallContext = {
  /** Who the call counts for, when the app limits requests. */
  client?: Client
  /** Counts more of a limit for this client (a tool with costs of its own), when the app limits requests. */
  takeLimit?: TakeLimit
}

/** Keeps a tool's input type attached to its handler when building a list of tools. */
export const defineMcpTool = <input extends z.ZodObject>(tool: McpTool<input>) =>
  tool as unknown as McpTool

export type MountMcpParameters = {
  name: string
  version: string
  tools: readonly McpTool[]
  path?: string
  /**
   * Each message counts against a request limit, as the HTTP routes do: a
   * tool call against its tool's `limit` (or `other`), anything else
   * (initialize, tools/list, notifications) against `other`. Over a limit
   * the whole request is answered 429 with the limit's headers.
   */
  limits?: { other: string }
}

const limitOfMessage = (
  message: unknown,
  tools: ReadonlyMap<string, McpTool>,
  other: string,
): string => {
  const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } }
  if (method !== 'tools/call' || typeof params?.name !== 'string') return other
  return tools.get(params.name)?.limit ?? other
}

const toolResult = (value: unknown, isError = false) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(value) }],
  ...(isError ? { isError: true } : { structuredContent: value as Record<string, unknown> }),
})

/**
 * Runs one tool call and answers what the HTTP route would: the result; for
 * bad arguments `{ error: validationMessage, issues }`; for a `Refusal` or an
 * `ApiError` its `{ error, ...extras }`; for an unreachable database the HTTP 503's message;
 * for anything else `{ error: "internal" }`, with the cause logged
 * (sanitized), never sent.
 */
const runTool = async (tool: McpTool, args: unknown, logger: Logger, context: McpCallContext) => {
  const parsed = await tool.inputSchema.safeParseAsync(args ?? {})
  if (!parsed.success)
    return toolResult(
      errorBody(tool.validationMessage ?? 'invalid request', { issues: parsed.error.issues }),
      true,
    )
  try {
    const result = await tool.handler(parsed.data, context)
    return isRefusal(result) ? toolResult(refusalBody(result), true) : toolResult(result)
  } catch (error) {
    if (error instanceof ApiError) return toolResult(errorBody(error.message, error.extras), true)
    if (error instanceof HTTPException && error.status < 500)
      return toolResult(errorBody(error.message || 'bad request'), true)
    // As createApp's onError: an unreachable database is retryable, not a fault.
    if (isUnavailable(error)) {
      logger.warn({ err: sanitizeError(error), tool: tool.name }, 'dependency unavailable')
      return toolResult(errorBody('service unavailable: retry shortly'), true)
    }
    logger.error({ err: sanitizeError(error), tool: tool.name }, 'unhandled tool error')
    return toolResult(errorBody('internal'), true)
  }
}

/**
 * Mounts a stateless MCP server (Streamable HTTP, JSON responses) on `POST /mcp`:
 * each request gets a fresh server and transport, so any replica can answer it.
 * Tool errors carry the same `{ error }` bodies as the HTTP routes.
 */
export const mountMcp = <variables extends object>(
  anyApp: App<variables>,
  { name, version, tools, path = '/mcp', limits }: MountMcpParameters,
) => {
  const app = baseApp(anyApp)
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  const buildServer = (logger: Logger, context: McpCallContext) => {
    const server = new McpServer({ name, version })
    for (const tool of tools) {
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema,
          ...(tool.annotations ? { annotations: tool.annotations } : {}),
        },
        (input: unknown) => runTool(tool, input, logger, context),
      )
    }
    // The SDK validates arguments itself and answers with its own text (and
    // a thrown error's message, which may be a driver's); this handler
    // answers with our error bodies instead. tools/list stays the SDK's.
    server.server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = byName.get(request.params.name)
      if (!tool) return toolResult(errorBody(`unknown tool: ${request.params.name}`), true)
      return runTool(tool, request.params.arguments, logger, context)
    })
    return server
  }

  const McpMessage = z
    .object({
      jsonrpc: z.literal('2.0'),
      id: z.union([z.string(), z.number(), z.null()]).optional(),
      method: z.string().optional().openapi({ description: 'a request: tools/list, tools/call' }),
      params: z.record(z.string(), z.unknown()).optional(),
      result: z.record(z.string(), z.unknown()).optional().openapi({ description: 'an answer' }),
      error: z
        .object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() })
        .optional(),
    })
    .passthrough()
    .openapi('JsonRpcMessage', { description: 'JSON-RPC 2.0 (MCP streamable HTTP, stateless)' })
  document(app, {
    method: 'post',
    path,
    summary: `MCP (streamable HTTP, stateless): the same operations as the REST routes, as tools`,
    security: [],
    // Each message counts itself, as its route would (below).
    limit: false,
    request: { body: json(McpMessage, 'a JSON-RPC request or batch') },
    responses: {
      200: json(McpMessage, 'the JSON-RPC answer'),
      202: { description: 'accepted: the request held only notifications or responses (no body)' },
      ...errors({
        400: 'not a JSON-RPC request',
        406: 'Accept must allow application/json and text/event-stream',
        415: 'Content-Type must be application/json',
      }),
      ...(limits
        ? {
            429: {
              ...json(
                z.object({ error: z.string(), limit: z.string(), retryAfter: z.number().int() }),
                'a message of the request is over its limit for this client (each tool call counts as its HTTP route does)',
              ),
              headers: {
                ...LIMIT_HEADERS,
                'Retry-After': {
                  description: 'seconds until the limit allows another request',
                  schema: { type: 'string' },
                },
              },
            },
          }
        : {}),
    },
  })
  for (const method of ['get', 'delete'] as const)
    document(app, {
      method,
      path,
      summary: 'Not served: the endpoint is stateless (405, use POST)',
      security: [],
      limit: false,
      responses: errors({ 405: 'this MCP endpoint is stateless; use POST' }),
    })
  app.post(path, async function handleMcp(c) {
    const takeLimit = c.get('takeLimit')
    const client = c.get('client')
    let request = c.req.raw
    let parsedBody: unknown
    let counted: LimitDecision | undefined
    // Read once here (the app's depth check has already read it: the raw
    // stream is spent) to count each message; the transport gets the parsed
    // body, or the text again when it is not JSON (it answers that itself).
    const text = await c.req.text()
    try {
      parsedBody = JSON.parse(text)
    } catch {
      request = new Request(c.req.url, { method: 'POST', headers: c.req.raw.headers, body: text })
    }
    if (limits && takeLimit) {
      for (const message of Array.isArray(parsedBody) ? parsedBody : [parsedBody]) {
        counted = await takeLimit(limitOfMessage(message, byName, limits.other))
        if (!counted.allowed) return tooManyRequestsResponse(counted)
      }
    }
    const server = buildServer(c.get('logger'), {
      ...(client ? { client } : {}),
      ...(takeLimit ? { takeLimit } : {}),
    })
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    try {
      const response = await transport.handleRequest(
        request,
        parsedBody === undefined ? undefined : { parsedBody },
      )
      if (!counted) return response
      const headers = new Headers(response.headers)
      for (const [header, value] of Object.entries(limitHeaders(counted)))
        headers.set(header, value)
      return new Response(response.body, { status: response.status, headers })
    } finally {
      // Stateless: nothing outlives the request.
      await server.close()
    }
  })
  app.on(['GET', 'DELETE'], path, (c) =>
    c.json(errorBody('this MCP endpoint is stateless; use POST'), 405, { Allow: 'POST' }),
  )
}
