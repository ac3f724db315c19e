import { writeFileSync } from 'node:fs'
import { test } from 'vitest'
import { startTestVenue } from './testing.ts'

test('dump', async () => {
  const venue = await startTestVenue()
  const doc = await (await fetch(`${venue.url}/openapi.json`)).text()
  writeFileSync(process.env.DUMP_TO ?? '/tmp/h30/openapi-before.json', doc)
  await venue.close()
}, 120_000)
