import type { RunningServer } from '@agents/service-kit'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { CREATOR, callOperation, startTestRouter } from './testing.ts'

let server: RunningServer
let client: Client
beforeAll(async () => {
  server = await startTestRouter()
  client = new Client({ name: 'launch-router-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)))
})
afterAll(async () => {
  await client.close()
  await server.close()
})

const flapIntent = { name: 'Mcp Token', symbol: 'MCP', chainId: 56, pad: 'flap', creator: CREATOR }

test('default: the six operations are tools with read-only hints', async () => {
  const { tools } = await client.listTools()
  expect(tools.map((tool) => tool.name).sort()).toEqual(
    [
      'draft_intent',
      'get_capabilities',
      'get_sign_payload',
      'list_networks',
      'list_pads',
      'simulate_launch',
    ].sort(),
  )
  for (const tool of tools) {
    expect(tool.annotations?.readOnlyHint, tool.name).toBe(true)
    expect(tool.annotations?.openWorldHint, tool.name).toBe(false)
  }
})

test('behavior: tools answer what the HTTP operations answer', async () => {
  const pads = await client.callTool({ name: 'list_pads', arguments: {} })
  expect(pads.structuredContent).toEqual((await callOperation(server, 'list_pads', {})).json)

  const drafted = await client.callTool({
    name: 'draft_intent',
    arguments: { intent: { ...flapIntent, salt: '0x1' } },
  })
  expect((drafted.structuredContent as { errors: Array<{ code: string }> }).errors[0]!.code).toBe(
    'salt_forbidden',
  )

  const signed = await client.callTool({
    name: 'get_sign_payload',
    arguments: { intent: flapIntent },
  })
  const http = await callOperation(server, 'get_sign_payload', { intent: flapIntent })
  expect(signed.structuredContent).toEqual(http.json)
})

test('errors: an unknown pad and an intent with errors come back as tool errors', async () => {
  const unknown = await client.callTool({ name: 'get_capabilities', arguments: { pad: 'nope' } })
  expect(unknown.isError).toBe(true)
  const refused = await client.callTool({
    name: 'get_sign_payload',
    arguments: { intent: { ...flapIntent, RH_STOCK: 'TSLA' } },
  })
  expect(refused.isError).toBe(true)
  const body = JSON.parse((refused.content as Array<{ text: string }>)[0]!.text)
  expect(body.errors[0].code).toBe('forbidden_stock_pair')
})
