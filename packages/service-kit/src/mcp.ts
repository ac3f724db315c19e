import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { z } from 'zod'
import type { App } from './create-app.ts'
import { ApiError, errorBody } from './errors.ts'

export type McpTool<input extends z.ZodObject = z.ZodObject> = {
  name: string
  title: string
  description: string
  inputSchema: input
  annotations?: ToolAnnotations
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
 * Mounts a stateless MCP server (Streamable HTTP, JSON responses) on `POST /mcp`:
 * each request gets a fresh server and transport, so any replica can answer it.
 */
export const mountMcp = (app: App, { name, version, tools, path = '/mcp' }: MountMcpParameters) => {
  const buildServer = () => {
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
        async (input: unknown) => {
          try {
            return toolResult(await tool.handler(input as never))
          } catch (error) {
            if (error instanceof ApiError) {
              return toolResult(errorBody(error.message, error.extras), true)
            }
            throw error
          }
        },
      )
    }
    return server
  }

  app.post(path, async function handleMcp(c) {
    const server = buildServer()
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
