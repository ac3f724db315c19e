import { randomUUID } from 'node:crypto'
import { checkPublicUrl, type Refusal, refusal } from '@agents/service-kit'
import { eq } from 'drizzle-orm'
import { getAddress } from 'viem'
import { type Actor, ownerIdOf } from '../credentials/actors.ts'
import { personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { AGENT_ERRORS } from './agent-errors.ts'
import type { AgentBody } from './agent-schemas.ts'
import { insertPendingEndpoint } from './endpoint-state.ts'

export type RegisterAgentParameters = {
  /** Who sent the request, if a credential came with it; only a binding uses it. */
  actor: Actor | undefined
  body: AgentBody
}

export type RegisterAgentReturnType =
  | { ok: true; id: number; challengeNonce: string }
  | Refusal<400 | 401 | 403>

/** Why the actor may not bind the endpoint, or undefined when it may. */
const bindingProblem = async (
  deps: VenueDeps,
  actor: Actor,
  body: AgentBody,
): Promise<string | undefined> => {
  if (body.ownerId !== undefined && ownerIdOf(actor) !== body.ownerId)
    return AGENT_ERRORS.notThisOwner
  if (body.personaId === undefined) return undefined
  const [persona] = await deps.database.db
    .select({ id: personas.id, ownerId: personas.ownerId })
    .from(personas)
    .where(eq(personas.id, body.personaId))
  const ownsIt = persona && persona.ownerId !== null && ownerIdOf(actor) === persona.ownerId
  const boundToIt = actor.kind === 'agent' && actor.endpoint.personaId === body.personaId
  return persona && (ownsIt || boundToIt) ? undefined : AGENT_ERRORS.notThisPersona
}

/**
 * Registers an agent endpoint (pending) and issues its challenge nonce.
 * Binding it to an owner or a persona acts for them, so that takes their
 * credential; without a binding the credential is not used.
 */
export const registerAgent = async (
  deps: VenueDeps,
  { actor: sender, body }: RegisterAgentParameters,
): Promise<RegisterAgentReturnType> => {
  if (body.callbackUrl) {
    const check = checkPublicUrl(body.callbackUrl, { allowHosts: deps.callbacks.allowHosts })
    if (!check.ok)
      return refusal(400, AGENT_ERRORS.invalidAgent, {
        issues: [{ code: 'custom', path: ['callbackUrl'], message: check.reason }],
      })
  }
  const binds = body.ownerId !== undefined || body.personaId !== undefined
  const actor = binds ? sender : undefined
  if (binds && !actor) return refusal(401, `credential required: ${AGENT_ERRORS.bindingWhat}`)
  if (actor) {
    const problem = await bindingProblem(deps, actor, body)
    if (problem) return refusal(403, problem)
  }
  const issuedAt = Date.now()
  const nonce = `${deps.servicePrefix}:${randomUUID()}:${issuedAt}`
  const id = await insertPendingEndpoint(deps.database.db, {
    ownerId: body.ownerId ?? (actor ? (ownerIdOf(actor) ?? null) : null),
    personaId: body.personaId ?? null,
    runtime: body.runtime,
    callbackUrl: body.callbackUrl ?? null,
    publicKey: body.publicKey ? getAddress(body.publicKey) : null,
    nonce,
    nonceExpiresAt: new Date(issuedAt + deps.nonceTtlSeconds * 1000),
  })
  return { ok: true, id, challengeNonce: nonce }
}
