import type { AnyTransaction } from '@agents/service-kit/db'
import { and, eq, isNull } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { agentEndpoints } from '../db/schema.ts'

/**
 * The agent endpoint states, and the only place that writes them: an
 * endpoint is registered `pending` with its challenge nonce, and becomes
 * `active` once, on the first proof (with its credential's hash).
 */
type Executor = AnyTransaction | VenueDatabase['db']

export type PendingEndpointValues = Omit<
  typeof agentEndpoints.$inferInsert,
  'id' | 'status' | 'verifiedReason' | 'credentialHash' | 'createdAt' | 'verifiedAt'
>

/** Registers an endpoint as `pending`; returns its id. */
export const insertPendingEndpoint = async (db: Executor, values: PendingEndpointValues) => {
  const [endpoint] = await db
    .insert(agentEndpoints)
    .values({ ...values, status: 'pending' })
    .returning({ id: agentEndpoints.id })
  return endpoint!.id
}

/**
 * `pending` -> `active` with the proof's reason and the credential's hash.
 * False when another proof activated it first (that one got the credential).
 */
export const activateEndpoint = async (
  db: Executor,
  endpointId: number,
  { reason, credentialHash }: { reason: string; credentialHash: string },
) => {
  const activated = await db
    .update(agentEndpoints)
    .set({ status: 'active', verifiedReason: reason, credentialHash, verifiedAt: new Date() })
    .where(and(eq(agentEndpoints.id, endpointId), eq(agentEndpoints.status, 'pending')))
    .returning({ id: agentEndpoints.id })
  return activated.length > 0
}

/**
 * Binds an endpoint that speaks for no persona yet to `personaId` (it then
 * acts for it). False when it already speaks for one.
 */
export const bindEndpointToPersona = async (
  db: Executor,
  endpointId: number,
  personaId: number,
) => {
  const bound = await db
    .update(agentEndpoints)
    .set({ personaId })
    .where(and(eq(agentEndpoints.id, endpointId), isNull(agentEndpoints.personaId)))
    .returning({ id: agentEndpoints.id })
  return bound.length > 0
}
