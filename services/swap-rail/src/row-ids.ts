import { answerOf, parseInput, type Refusal, refusal, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The message of a 400 for a path id no row could have (U+0000). */
export const INVALID_ID = 'invalid id'

export const IdParam = z.object({ id: SafeText.openapi({ param: { name: 'id', in: 'path' } }) })

/**
 * Ids are uuids; anything else cannot name a row, so it is the same 404 as
 * an unknown one, returned; text the database could not even compare
 * (U+0000) is bad input, thrown as the 400 of a bad parameter.
 */
export const rowIdOf = (id: string | undefined, what: string): string | Refusal<404> => {
  if (id === undefined) return refusal(404, `no such ${what}`)
  parseInput(IdParam, { id }, INVALID_ID)
  if (!UUID.test(id)) return refusal(404, `no such ${what}`)
  return id.toLowerCase()
}

/** A route's path id (`rowIdOf`) while its parameters are parsed: the 404 is the route's answer. */
export const idOr404 = (id: string | undefined, what: string) => answerOf(rowIdOf(id, what))
