import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

// Each /admin route carries its guard itself, so it cannot depend on what was registered
// before it: every documented one is asked without a token and with a wrong one.
describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the operator guard on $name',
  ({ open }) => {
    let venue: Venue
    useTestVenue(open, (started) => {
      venue = started
    })

    it('every /admin route of /openapi.json answers 401 without the operator token and 403 with another', async () => {
      const document = await (await fetch(`${venue.url}/openapi.json`)).json()
      const routes = Object.entries<Record<string, unknown>>(document.paths)
        .filter(([path]) => path.startsWith('/admin'))
        .flatMap(([path, operations]) =>
          Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })),
        )
      expect(routes.map((route) => `${route.method} ${route.path}`)).toEqual(
        expect.arrayContaining([
          'POST /admin/actions/beat',
          'POST /admin/actions/settings',
          'POST /admin/actions/broker',
          'GET /admin/orders',
          'GET /admin/orders/totals',
          'POST /admin/actions/review',
          'POST /admin/actions/moderate',
          'POST /admin/actions/credit',
          'GET /admin',
          'GET /admin.json',
          'GET /admin/queue',
          'GET /admin/trends',
        ]),
      )
      const before = (
        await venue.deps.database.client.query('SELECT count(*)::int AS n FROM events', [])
      ).rows
      for (const { method, path } of routes) {
        const send = (headers: Record<string, string>) =>
          fetch(`${venue.url}${path}`, {
            method,
            headers: {
              ...headers,
              ...(method === 'GET' ? {} : { 'content-type': 'application/json' }),
            },
            ...(method === 'GET'
              ? {}
              : { body: JSON.stringify({ coupleId: 1, key: 'cap', value: 1 }) }),
          })
        const without = await send({})
        expect(without.status, `${method} ${path} without a token`).toBe(401)
        // The console page answers its 401 as the page (showing the sign-in, with no data in it).
        if (path === '/admin') expect(await without.text()).toContain('Sign in with your wallet')
        else expect(await without.json()).toEqual({ error: 'operator credential required' })
        const wrong = await send({ authorization: 'Bearer not-the-operator' })
        expect(wrong.status, `${method} ${path} with another token`).toBe(403)
        expect(await wrong.json()).toEqual({ error: 'operator credential not recognised' })
      }
      // Refused before anything ran: no beat, no setting, no broker event.
      expect(await venue.deps.settings.cap()).not.toBe(1)
      expect(
        (await venue.deps.database.client.query('SELECT count(*)::int AS n FROM events', [])).rows,
      ).toEqual(before)
    })
  },
)
