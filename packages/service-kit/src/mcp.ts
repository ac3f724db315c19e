import { z } from '@hono/zod-openapi'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CallToolRequestSchema, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import { HTTPException } from 'hono/http-exception'
import type { App } from './create-app.ts'
import { ApiError, errorBody } from './errors.ts'
import type { Logger } from './logger.ts'
import { document, errors, json } from './openapi.ts'
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
  /** Returns the tool's JSON result; an `ApiError` becomes an MCP tool error. */
  handler: (input: z.output<input>) => unknown | Promise<unknown>
}

/** Keeps a tool's input type attached to its handler when building a list of tools. */
export const defineMcpTool = <input extends z.ZodObject>(tool: McpTool<input>) =>
  tool as unknown as McpTool

export type MountMcpParameters = {
  name: string
  version: string
  tools: readonly McpTool[]
  path?: string
}

const toolResult = (value: unknown, isError = false) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(value) }],
  ...(isError ? { isError: true } : { structuredContent: value as Record<string, unknown> }),
})

/**
 * Runs one tool call and answers what the HTTP route would: the result; for
 * bad arguments `{ error: validationMessage, issues }`; for an `ApiError` its
 * `{ error, ...extras }`; for an unreachable database the HTTP 503's message;
 * for anything else `{ error: "internal" }`, with the cause logged
 * (sanitized), never sent.
 */
const runTool = async (tool: McpTool, args: unknown, logger: Logger) => {
  const parsed = await tool.inputSchema.safeParseAsync(args ?? {})
  if (!parsed.success)
    return toolResult(
      errorBody(tool.validationMessage ?? 'invalid request', { issues: parsed.error.issues }),
      true,
    )
  try {
    return toolResult(await tool.handler(parsed.data))
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
export const mountMcp = (app: App, { name, version, tools, path = '/mcp' }: MountMcpParameters) => {
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  const buildServer = (logger: Logger) => {
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
        (input: unknown) => runTool(tool, input, logger),
      )
    }
    // The SDK validates arguments itself and answers with its own text (and
    // a thrown error's message, which may be a driver's); this handler
    // answers with our error bodies instead. tools/list stays the SDK's.
    server.server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = byName.get(request.params.name)
      if (!tool) return toolResult(errorBody(`unknown tool: ${request.params.name}`), true)
      return runTool(tool, request.params.arguments, logger)
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
    request: { body: json(McpMessage, 'a JSON-RPC request or batch') },
    responses: {
      200: json(McpMessage, 'the JSON-RPC answer'),
      ...errors({ 400: 'not a JSON-RPC request', 406: 'Accept must allow application/json' }),
    },
  })
  for (const method of ['get', 'delete'] as const)
    document(app, {
      method,
      path,
      summary: 'Not served: the endpoint is stateless (405, use POST)',
      security: [],
      responses: errors({ 405: 'this MCP endpoint is stateless; use POST' }),
    })
  app.post(path, async function handleMcp(c) {
    const server = buildServer(c.get('logger'))
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    try {
      return await transport.handleRequest(c.req.raw)
    } finally {
      // Stateless: nothing outlives the request.
      await server.close()
    }
  })
  app.on(['GET', 'DELETE'], path, (c) =>
    c.json(errorBody('this MCP endpoint is stateless; use POST'), 405, { Allow: 'POST' }),
  )
}
