import { mcpToolCall, sendRaw, walkForeignHost } from '@agents/service-kit/bad-input'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CREATOR, startTestRouter } from './testing.ts'

// No absolute URL comes from the request: every route of /openapi.json (llms.txt among them),
// and the MCP tools, sent with Host, X-Forwarded-Host and Forwarded naming evil.example.
describe.each<{ name: string; env: Record<string, string> }>([
  { name: 'BASE_URL unset (the listening address)', env: {} },
  { name: 'BASE_URL set', env: { BASE_URL: 'https://router.example' } },
])('a request naming another host, $name', ({ env }) => {
  let server: Awaited<ReturnType<typeof startTestRouter>>
  beforeAll(async () => {
    server = await startTestRouter(env)
  })
  afterAll(() => server?.close())
  const base = () => env.BASE_URL ?? server.url

  it('finds evil.example in no answer of any route', async () => {
    const { operations, statuses, leaks } = await walkForeignHost({
      baseUrl: server.url,
      samples: { name: 'Walker', symbol: 'WLK', chainId: 56, pad: 'flap', creator: CREATOR },
      requests: [
        mcpToolCall('list_pads'),
        mcpToolCall('get_capabilities', { pad: 'flap' }),
        mcpToolCall('get_sign_payload', {
          intent: { name: 'Walker', symbol: 'WLK', chainId: 56, pad: 'flap', creator: CREATOR },
        }),
      ],
    })
    expect(operations).toEqual(expect.arrayContaining(['GET /llms.txt', 'POST /mcp']))
    expect(leaks).toEqual([])
    expect(statuses).toMatchObject({
      'GET /llms.txt [no credential]': 200,
      'POST /api/v1/get_sign_payload [no credential]': 200,
      'MCP get_sign_payload': 200,
    })
  }, 60_000)

  it("llms.txt links on the router's base URL", async () => {
    const { text } = await sendRaw(server.url, {
      method: 'GET',
      path: '/llms.txt',
      headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
    })
    expect(text).toContain(`POST ${base()}/api/v1/<operation>`)
  })
})
