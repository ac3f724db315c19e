import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Venue } from './start.ts'
import { startTestVenue } from './testing.ts'

// The README's route table is what operators and agent builders read first;
// it must name exactly the routes /openapi.json documents, no more, no less.

let venue: Venue
beforeAll(async () => {
  venue = await startTestVenue()
})
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
