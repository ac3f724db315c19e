import { readFile } from 'node:fs/promises'
import { classOf, declaredRoutes, limitOfRoute } from '@agents/service-kit'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { VENUE_LIMIT_DEFAULTS } from './limits/limit-defaults.ts'
import type { Venue } from './start.ts'
import { startTestVenue } from './testing.ts'
import { VENUE_COUNTING } from './venue-counting.ts'

// The README's route table is what operators and agent builders read first;
// it must name exactly the routes /openapi.json documents, no more, no less.

let venue: Venue
beforeAll(async () => {
  venue = await startTestVenue()
}, 60_000)
afterAll(() => venue?.close())

/** `METHOD /path` for every route cell of the README's `## Routes` table (`:param` form). */
const readmeRoutes = (readme: string) => {
  const section = readme.split(/^## Routes$/m)[1]?.split(/^## /m)[0] ?? ''
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => {
      const cell = line.split('|')[1]!
      const [first, ...more] = [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!)
      const [method, path] = first!.split(' ') as [string, string]
      // "`GET /`, `/skill`" lists several paths of one method in one row;
      // "`GET /mcp`, `DELETE /mcp`" several routes.
      return [path, ...more].map(
        (each) => (each.includes(' ') ? each : `${method} ${each}`).split('?')[0],
      )
    })
}

it("the README's route table matches /openapi.json exactly", async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')
  const document = (await (await fetch(`${venue.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>
  }
  const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map(
      (method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
    ),
  )
  expect(readmeRoutes(readme).sort()).toEqual(documented.sort())
})

/** `limit -> METHOD /path` for every route the README's request-limits table names in a row. */
const readmeLimits = (readme: string) => {
  const section = readme.split(/^## Request limits$/m)[1]?.split(/^## /m)[0] ?? ''
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [, name, , routes] = line.split('|') as [string, string, string, string]
      const limit = /`([^`]+)`/.exec(name)![1]!
      // "every GET (`/health`, ...)": the read row's bare paths are GETs; elsewhere a bare
      // path takes the method of the route before it ("`POST /a`, `/b`").
      let method = limit === 'read' ? 'GET' : undefined
      const named: string[] = []
      for (const [, token] of routes.matchAll(/`([^`]+)`/g)) {
        const [first, second] = token!.split(' ')
        if (second?.startsWith('/')) {
          method = first
          named.push(token!)
        } else if (first!.startsWith('/') && !first!.includes('*') && method)
          named.push(`${method} ${first}`)
      }
      return { limit, named }
    })
}

it("the README's request-limits table names each route under the limit the route declares", async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')
  const routes = declaredRoutes(venue.app)
  const classesOf = (key: string) => {
    const [method, path] = key.split(' ') as [string, string]
    const route = limitOfRoute(routes, VENUE_COUNTING.unlisted, { method, path })
    return [classOf(route, true), classOf(route, false)]
  }
  const rows = readmeLimits(readme)
  expect(rows.map(({ limit }) => limit)).toEqual(Object.keys(VENUE_LIMIT_DEFAULTS))
  for (const { limit, named } of rows)
    for (const key of named) {
      expect(routes.of({ method: key.split(' ')[0]!, path: key.split(' ')[1]! }), key).toBeDefined()
      expect(classesOf(key), key).toContain(limit)
    }
  // These two rows list their routes in full: every route declaring the class is named.
  for (const limit of ['outbound', 'challenge']) {
    const declared = [...routes.entries()]
      .filter(([key]) => classesOf(key).includes(limit))
      .map(([key]) => key)
    expect(rows.find((row) => row.limit === limit)!.named.sort(), limit).toEqual(declared.sort())
  }
})
