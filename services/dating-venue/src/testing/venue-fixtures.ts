import { postJson } from '@agents/service-kit'
import type { TestBackend } from '@agents/service-kit/db'
import { afterAll, beforeAll } from 'vitest'
import type { Venue } from '../start.ts'
import { startTestVenue, TEST_ADMIN_TOKEN, type TestVenueParameters } from '../testing.ts'

/**
 * A test venue on one backend for a describe block: started before its
 * tests (handed to `onStart`), closed and its database dropped after. Also
 * returns `get` (status, JSON, text and headers of a GET) and `admin` (an
 * operator setting), the helpers the venue's feature tests share.
 *
 * @example
 * let venue: Venue
 * const { get, admin } = useTestVenue(open, (started) => { venue = started })
 */
export const useTestVenue = (
  open: TestBackend['open'],
  onStart: (venue: Venue) => void,
  parameters: Omit<TestVenueParameters, 'databaseUrl'> = {},
) => {
  let venue: Venue | undefined
  let drop: (() => Promise<void>) | undefined
  beforeAll(async () => {
    const database = await open()
    drop = database.drop
    venue = await startTestVenue({ ...parameters, databaseUrl: database.url })
    onStart(venue)
  })
  afterAll(async () => {
    await venue?.close()
    await drop?.()
  })
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${venue!.url}${path}`, { headers })
    const text = await response.text()
    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON by path
    let json: any
    try {
      json = JSON.parse(text)
    } catch {}
    return { status: response.status, json, text, headers: response.headers }
  }
  const admin = (key: string, value: unknown) =>
    postJson(
      `${venue!.url}/admin/actions/settings`,
      { key, value },
      { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    )
  return { get, admin }
}
