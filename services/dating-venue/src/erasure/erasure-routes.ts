import {
  ApiError,
  bearerToken,
  document,
  errors,
  json,
  parseInput,
  RowIdParam,
} from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { eq } from 'drizzle-orm'
import { signedInHuman } from '../credentials/actor-middleware.ts'
import { authenticate, requireOwner } from '../credentials/actors.ts'
import { chatSessionOwner } from '../credentials/chat-actor.ts'
import { owners } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp, VenueMiddleware, VenueVariables } from '../venue-env.ts'
import { operatorOfRequest } from '../wallet-session/operator-guard.ts'
import { eraseOwner } from './erase-owner.ts'

const OwnerParams = z.object({
  ownerId: RowIdParam.openapi({ param: { name: 'ownerId', in: 'path' }, example: 1 }),
})

const Erased = z
  .object({
    erased: z.literal(true),
    ownerId: z.number().int(),
    personas: z.number().int().openapi({ description: 'personas removed' }),
    couplesEnded: z
      .number()
      .int()
      .openapi({ description: 'couples with another persona ended; that side is told' }),
    postsRemoved: z
      .number()
      .int()
      .openapi({ description: 'posts of its personas and notification lines naming them' }),
  })
  .openapi('OwnerErased')

/** What erasure's middleware sets: the owner in the path, who erases it, and the operator when it is one. */
export type ErasureVariables = Pick<VenueVariables, 'ownerId' | 'eraser' | 'operator'>

/** `:ownerId` as a possible row id, before anything reads the database: else 400 `bad owner id`. */
const ownerParam: VenueMiddleware = async function ownerParam(c, next) {
  c.set('ownerId', parseInput(OwnerParams, c.req.param(), 'bad owner id').ownerId)
  await next()
}

/**
 * Who may erase the owner: the operator (`Bearer VENUE_ADMIN_TOKEN`, or the
 * console's session cookie of an allow-listed wallet), a venue credential
 * acting for the owner (its own, or its bound agent's), the human signed
 * in who claimed it (a login token whose subject is the owner's), or the
 * chat page's human (its session acts for the owner its wallet keys, as on
 * the courtship routes). The operator is resolved as the console's guard
 * does; among other bearers a `vo_`/`va_` bearer is a credential, anything else a
 * login token. None: 401; not one acting for this owner: 403; an owner
 * that does not exist: 404 (an owner credential for it is 403, as for any
 * credential that is not live).
 */
const eraserOf = (deps: VenueDeps): VenueMiddleware =>
  async function eraser(c, next) {
    const ownerId = c.get('ownerId')!
    const exists = async () => {
      const [owner] = await deps.database.db
        .select({ humanSubject: owners.humanSubject })
        .from(owners)
        .where(eq(owners.id, ownerId))
      if (!owner) throw new ApiError(404, 'no such owner')
      return owner
    }
    const operator = await operatorOfRequest(deps, c)
    const bearer = bearerToken(c.req.header('authorization'))
    if (operator) {
      await exists()
      c.set('eraser', 'operator')
      c.set('operator', operator)
    } else if (!bearer) {
      // The human of the chat page: its session acts for the owner its wallet keys.
      const actor = await chatSessionOwner(deps, c)
      if (!actor) throw new ApiError(401, 'credential required: acting for this owner')
      await exists()
      requireOwner(actor, ownerId)
      c.set('eraser', 'human')
    } else if (/^v[oa]_/.test(bearer)) {
      const actor = await authenticate(deps.database, `Bearer ${bearer}`, 'acting for this owner')
      requireOwner(actor, ownerId)
      c.set('eraser', actor.kind)
    } else {
      const subject = await signedInHuman(deps, bearer)
      const owner = await exists()
      if (owner.humanSubject !== subject)
        throw new ApiError(403, 'login does not act for this owner')
      c.set('eraser', 'human')
    }
    await next()
  }

/** Erasure: an owner and everything of it leave the venue. */
export const registerErasureRoutes = (app: VenueApp, deps: VenueDeps) => {
  const path = document(app, {
    method: 'delete',
    path: '/api/owners/{ownerId}',
    summary:
      'Erase an owner: its docs, personas, vectors, couples, consents, invites, identity sessions, chat, credits and agents; orders stay as anonymous amounts',
    security: [...SECURITY.credentialOrChat, ...SECURITY.login, ...SECURITY.operator],
    limit: LIMIT.write,
    description:
      "The operator may also use the console session cookie (`venue_operator`) of an allow-listed wallet; the human of the chat page, its session cookie (`venue_chat`) when the signed-in wallet is the owner's.",
    request: { params: OwnerParams },
    responses: {
      200: json(Erased, 'erased; the partners of its couples are told as for a withdrawal'),
      ...errors({
        400: 'bad owner id',
        401: 'credential required / auth verification failed',
        403: 'credential not recognised / credential does not act for this owner / login does not act for this owner',
        404: 'no such owner',
      }),
    },
  })
  app.delete(path, ownerParam, eraserOf(deps), async (c) => {
    const operator = c.get('operator')
    const answer = await eraseOwner(deps, {
      ownerId: c.get('ownerId')!,
      by: c.get('eraser')!,
      ...(operator ? { operator } : {}),
    })
    if (!answer) throw new ApiError(404, 'no such owner')
    c.header('cache-control', 'no-store')
    return c.json(answer)
  })
}
