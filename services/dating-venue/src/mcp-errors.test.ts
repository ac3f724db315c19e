import { testBackends } from '@agents/service-kit/db'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from './start.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from './testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'MCP tool errors on $name',
  ({ open }) => {
    let venue: Venue
    let client: Client
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      venue = await startTestVenue({ databaseUrl: database.url })
      client = new Client({ name: 'venue-errors', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${venue.url}/mcp`)))
    }, 60_000)
    afterAll(async () => {
      await client?.close()
      await venue?.close()
      await drop?.()
    })

    const errorOf = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args })
      expect(result.isError).toBe(true)
      return JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as unknown
    }

    it('arguments a tool does not take are a 400-style body with the zod issues', async () => {
      expect(await errorOf('get_stats', { personaId: 2 ** 31 })).toMatchObject({
        error: 'invalid request',
        issues: [{ code: 'unrecognized_keys', keys: ['personaId'] }],
      })
    })

    it('a fault is `internal`, as on HTTP, never the driver’s text', async () => {
      // Last: the table is gone for the rest of this database's life.
      await venue.deps.database.client.query('DROP TABLE turns CASCADE')
      const route = await fetch(`${venue.url}/api/boards/courtships`)
      expect(route.status).toBe(500)
      expect(await route.json()).toEqual({ error: 'internal' })
      const result = await client.callTool({ name: 'get_courtships', arguments: {} })
      expect(result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: '{"error":"internal"}' }],
      })
      expect(JSON.stringify(result)).not.toMatch(/Failed query|turns/)
      expect(await errorOf('get_stats', {})).toEqual({ error: 'internal' })
    })
  },
)
