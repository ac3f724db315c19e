import { Refused, refusal, returnRefusal } from '@agents/service-kit'
import { and, eq } from 'drizzle-orm'
import { getAddress } from 'viem'
import type { SeatExecutor } from '../admission/seats.ts'
import { owners, personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { IDENTITY_ERRORS } from '../identity/identity-errors.ts'
import { startIdentityCheck } from '../identity/identity-session.ts'
import { claimOwner } from '../identity/identity-state.ts'
import { HUMAN_MODEL } from '../intake/submit-doc-checks.ts'
import { ESCALATION_ERRORS } from './escalation-errors.ts'
import { claimInviteToken } from './invite-state.ts'

export type ClaimInviteParameters = {
  /** The signed-in human (their verified login subject). */
  subject: string
  token: string
}

/**
 * A profile submitted from the chat page has its wallet as its human's
 * login: only a SIWE sign-in of that wallet may claim it, so an invite link
 * that leaks is worth nothing to anyone else. Other owners take any login.
 */
const loginFits = async (tx: SeatExecutor, ownerId: number, subject: string) => {
  const [submitted] = await tx
    .select({ wallet: owners.wallet })
    .from(owners)
    .innerJoin(personas, eq(personas.ownerId, owners.id))
    .where(and(eq(owners.id, ownerId), eq(personas.model, HUMAN_MODEL)))
    .limit(1)
  return !submitted || subject === `siwe:${getAddress(submitted.wallet)}`
}

/**
 * POST /api/escalations/claim: the human behind an invite, already signed
 * in, claims it. The invite is claimed with one conditional UPDATE (two
 * racing claims: one wins, 404 for the other) and the owner is bound to
 * this human, in the same transaction (either refusal rolls both back).
 * Then the identity check is started.
 */
export const claimInvite = async (deps: VenueDeps, { subject, token }: ClaimInviteParameters) => {
  const claimed = await returnRefusal(() =>
    deps.database.db.transaction(async (tx) => {
      const ownerId = await claimInviteToken(tx, token)
      if (ownerId === undefined) throw new Refused(refusal(404, ESCALATION_ERRORS.invalidInvite))
      if (!(await loginFits(tx, ownerId, subject)))
        throw new Refused(refusal(403, ESCALATION_ERRORS.walletLoginRequired))
      const bound = await claimOwner(tx, ownerId, subject)
      if (!bound.ok)
        throw new Refused(
          refusal(
            403,
            bound.why === 'subjectTaken'
              ? ESCALATION_ERRORS.subjectTaken
              : ESCALATION_ERRORS.claimedByAnother,
          ),
        )
      return bound.owner
    }),
  )
  if ('error' in claimed) return claimed
  const check =
    claimed.tier === 'identity_verified'
      ? { url: null, note: IDENTITY_ERRORS.alreadyVerified }
      : await startIdentityCheck(deps, claimed.id)
  return {
    ok: true as const,
    ownerId: claimed.id,
    tier: claimed.tier,
    diditUrl: check.url,
    identityNote: check.note,
  }
}
