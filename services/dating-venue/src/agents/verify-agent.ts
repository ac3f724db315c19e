import { timingSafeEqual } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { getAddress, recoverMessageAddress } from 'viem'
import { formatCredential, newSecret } from '../credentials/credentials.ts'
import { agentEndpoints, type EndpointRow } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { postJsonOutbound } from '../outbound/post-json-outbound.ts'
import { VERIFY_REFUSALS } from './agent-errors.ts'
import type { VerifyAnswer, VerifyBody } from './agent-schemas.ts'
import { activateEndpoint } from './endpoint-state.ts'

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** The proof's reason (`verified:...`), or the detail of why it does not satisfy the challenge. */
const checkProof = async (
  deps: VenueDeps,
  endpoint: EndpointRow,
  body: VerifyBody,
): Promise<{ ok: true; reason: string } | { ok: false; detail: string }> => {
  const refuse = (detail: string) => ({ ok: false as const, detail })
  if (endpoint.nonceExpiresAt.getTime() <= Date.now()) return refuse(VERIFY_REFUSALS.nonceExpired)
  if (body.signature) {
    if (!endpoint.publicKey) return refuse(VERIFY_REFUSALS.noPublicKey)
    const signer = await recoverMessageAddress({
      message: endpoint.nonce,
      signature: body.signature as `0x${string}`,
    }).catch(() => undefined)
    if (signer !== getAddress(endpoint.publicKey)) return refuse(VERIFY_REFUSALS.wrongSigner)
    return { ok: true, reason: 'verified:signature' }
  }
  if (body.echoToken !== undefined) {
    if (!sameText(body.echoToken, endpoint.nonce)) return refuse(VERIFY_REFUSALS.echoMismatch)
    return { ok: true, reason: 'verified:callback' }
  }
  if (!endpoint.callbackUrl) return refuse(VERIFY_REFUSALS.noProof)
  const answer = await postJsonOutbound(
    endpoint.callbackUrl,
    { challenge: endpoint.nonce },
    {
      allowHosts: deps.callbacks.allowHosts,
      timeoutMs: deps.callbacks.timeoutMs,
      maxResponseBytes: deps.callbacks.maxBytes,
    },
  )
  if (!answer.ok) return refuse(VERIFY_REFUSALS.callbackFailed(answer.reason))
  const echo = (answer.json as { echo?: unknown } | null)?.echo
  if (typeof echo !== 'string' || !sameText(echo, endpoint.nonce))
    return refuse(VERIFY_REFUSALS.noEcho)
  return { ok: true, reason: 'verified:callback' }
}

/**
 * Moves a pending endpoint to active on one proof: an EIP-191 signature over
 * the exact nonce by the registered key, an echoToken equal to the nonce, or
 * the callback echoing the challenge the venue posts to it. The answer
 * carries the endpoint's credential, once. Needs no credential: the proof
 * is the credential.
 */
export const verifyAgent = async (deps: VenueDeps, body: VerifyBody): Promise<VerifyAnswer> => {
  const [endpoint] = await deps.database.db
    .select()
    .from(agentEndpoints)
    .where(eq(agentEndpoints.id, body.endpointId))
  if (!endpoint) return { active: false, reason: VERIFY_REFUSALS.unknownEndpoint }
  if (endpoint.status === 'active')
    return { active: true, reason: endpoint.verifiedReason ?? 'verified' }
  const proof = await checkProof(deps, endpoint, body)
  if (!proof.ok)
    return { active: false, reason: VERIFY_REFUSALS.notSatisfied, detail: proof.detail }
  const { secret, hash } = newSecret()
  const activated = await activateEndpoint(deps.database.db, endpoint.id, {
    reason: proof.reason,
    credentialHash: hash,
  })
  // Two proofs racing: the first one activates and gets the credential.
  if (!activated) return { active: true, reason: proof.reason }
  return {
    active: true,
    reason: proof.reason,
    agentCredential: formatCredential('agent', endpoint.id, secret),
  }
}
