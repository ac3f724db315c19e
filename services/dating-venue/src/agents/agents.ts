import { randomUUID, timingSafeEqual } from 'node:crypto'
import { ApiError, checkPublicUrl, RowId, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { and, eq } from 'drizzle-orm'
import { getAddress, isAddress, recoverMessageAddress } from 'viem'
import { type Actor, authenticate, ownerIdOf } from '../credentials/actors.ts'
import { formatCredential, newSecret } from '../credentials/credentials.ts'
import { agentEndpoints, personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { postJsonOutbound } from '../outbound/index.ts'

export const AgentBody = z
  .object({
    ownerId: RowId.optional(),
    personaId: RowId.optional(),
    runtime: z.enum(['openclaw', 'hermes', 'claude', 'codex', 'other']),
    callbackUrl: SafeText.max(2048).optional().openapi({ description: 'https URL' }),
    publicKey: SafeText.refine(
      (value) => isAddress(value, { strict: false }),
      'expected an EVM address',
    )
      .optional()
      .openapi({ description: 'EVM address; needed for the signature proof' }),
  })
  .strict()
  .refine((body) => body.publicKey || body.callbackUrl, {
    message: 'at least one of publicKey or callbackUrl is needed to satisfy the challenge',
    path: ['publicKey'],
  })
  .openapi('AgentEndpoint')
export type AgentBody = z.infer<typeof AgentBody>

export const VerifyBody = z
  .object({
    endpointId: RowId,
    signature: SafeText.regex(/^0x[0-9a-fA-F]{2,2048}$/, 'a 0x-prefixed hex signature').optional(),
    echoToken: SafeText.max(300).optional(),
  })
  .strict()
  .openapi('VerifyAgent')

/**
 * Registers an agent endpoint (pending) and issues its challenge nonce.
 * Binding it to an owner or a persona acts for them, so that takes their
 * credential.
 */
export const registerAgent = async (
  deps: VenueDeps,
  body: AgentBody,
  authorization: string | undefined,
) => {
  if (body.callbackUrl) {
    const check = checkPublicUrl(body.callbackUrl, { allowHosts: deps.callbacks.allowHosts })
    if (!check.ok)
      throw new ApiError(400, 'invalid agent', {
        issues: [{ code: 'custom', path: ['callbackUrl'], message: check.reason }],
      })
  }
  let actor: Actor | undefined
  if (body.ownerId !== undefined || body.personaId !== undefined) {
    actor = await authenticate(
      deps.database,
      authorization,
      'binding an endpoint to an owner or persona',
    )
    if (body.ownerId !== undefined && ownerIdOf(actor) !== body.ownerId)
      throw new ApiError(403, 'credential does not act for this owner')
    if (body.personaId !== undefined) {
      const [persona] = await deps.database.db
        .select({ id: personas.id, ownerId: personas.ownerId })
        .from(personas)
        .where(eq(personas.id, body.personaId))
      const ownsIt = persona && persona.ownerId !== null && ownerIdOf(actor) === persona.ownerId
      const boundToIt = actor.kind === 'agent' && actor.endpoint.personaId === body.personaId
      if (!persona || !(ownsIt || boundToIt))
        throw new ApiError(403, 'credential does not act for this persona')
    }
  }
  const issuedAt = Date.now()
  const nonce = `${deps.servicePrefix}:${randomUUID()}:${issuedAt}`
  const [endpoint] = await deps.database.db
    .insert(agentEndpoints)
    .values({
      ownerId: body.ownerId ?? (actor ? (ownerIdOf(actor) ?? null) : null),
      personaId: body.personaId ?? null,
      runtime: body.runtime,
      callbackUrl: body.callbackUrl ?? null,
      publicKey: body.publicKey ? getAddress(body.publicKey) : null,
      nonce,
      nonceExpiresAt: new Date(issuedAt + deps.nonceTtlSeconds * 1000),
    })
    .returning({ id: agentEndpoints.id })
  return { id: endpoint!.id, challengeNonce: nonce }
}

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

type VerifyAnswer =
  | { status: 200; body: { active: true; reason: string; agentCredential?: string } }
  | {
      status: 422
      body: {
        active: false
        reason: 'unknown endpoint' | 'challenge not satisfied'
        detail?: string
      }
    }

/**
 * Moves a pending endpoint to active on one proof: an EIP-191 signature over
 * the exact nonce by the registered key, an echoToken equal to the nonce, or
 * the callback echoing the challenge the venue posts to it. The answer
 * carries the endpoint's credential, once.
 */
export const verifyAgent = async (
  deps: VenueDeps,
  body: z.infer<typeof VerifyBody>,
): Promise<VerifyAnswer> => {
  const { db } = deps.database
  const [endpoint] = await db
    .select()
    .from(agentEndpoints)
    .where(eq(agentEndpoints.id, body.endpointId))
  if (!endpoint) return { status: 422, body: { active: false, reason: 'unknown endpoint' } }
  if (endpoint.status === 'active')
    return { status: 200, body: { active: true, reason: endpoint.verifiedReason ?? 'verified' } }
  const refuse = (detail: string): VerifyAnswer => ({
    status: 422,
    body: { active: false, reason: 'challenge not satisfied', detail },
  })
  if (endpoint.nonceExpiresAt.getTime() <= Date.now())
    return refuse('the challenge nonce expired: register the endpoint again')

  let reason: string | undefined
  if (body.signature) {
    if (!endpoint.publicKey) return refuse('no publicKey registered for a signature proof')
    const signer = await recoverMessageAddress({
      message: endpoint.nonce,
      signature: body.signature as `0x${string}`,
    }).catch(() => undefined)
    if (signer !== getAddress(endpoint.publicKey))
      return refuse('signature is not by the registered key')
    reason = 'verified:signature'
  } else if (body.echoToken !== undefined) {
    if (!sameText(body.echoToken, endpoint.nonce))
      return refuse('echoToken does not equal the nonce')
    reason = 'verified:callback'
  } else if (endpoint.callbackUrl) {
    const answer = await postJsonOutbound(
      endpoint.callbackUrl,
      { challenge: endpoint.nonce },
      {
        allowHosts: deps.callbacks.allowHosts,
        timeoutMs: deps.callbacks.timeoutMs,
        maxResponseBytes: deps.callbacks.maxBytes,
      },
    )
    if (!answer.ok) return refuse(`callback failed: ${answer.reason}`)
    const echo = (answer.json as { echo?: unknown } | null)?.echo
    if (typeof echo !== 'string' || !sameText(echo, endpoint.nonce))
      return refuse('the callback did not echo the challenge')
    reason = 'verified:callback'
  } else {
    return refuse('send a signature or an echoToken')
  }

  const { secret, hash } = newSecret()
  const [activated] = await db
    .update(agentEndpoints)
    .set({ status: 'active', verifiedReason: reason, credentialHash: hash, verifiedAt: new Date() })
    .where(and(eq(agentEndpoints.id, endpoint.id), eq(agentEndpoints.status, 'pending')))
    .returning({ id: agentEndpoints.id })
  // Two proofs racing: the first one activates and gets the credential.
  if (!activated) return { status: 200, body: { active: true, reason } }
  return {
    status: 200,
    body: { active: true, reason, agentCredential: formatCredential('agent', endpoint.id, secret) },
  }
}
