import { refusal } from '@agents/service-kit'
import { and, desc, eq, gt, isNull, or, sql } from 'drizzle-orm'
import { type Actor, ownerIdOf } from '../credentials/actors.ts'
import { agentEndpoints, invites } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { HUMAN_MODEL } from '../intake/submit-doc-checks.ts'
import { notifyAgent } from '../notify/notify-agent.ts'
import { coupleOwners } from './couple-owners.ts'
import { ESCALATION_ERRORS } from './escalation-errors.ts'
import { mintInvite } from './invite-state.ts'

const claimUrl = (deps: VenueDeps, token: string) => `${deps.baseUrl()}/claim?token=${token}`

/** The agent endpoint that speaks for an owner here: its persona's, else one bound to the owner; one with a callback first. */
const endpointFor = async (deps: VenueDeps, ownerId: number, personaId: number) => {
  const rows = await deps.database.db
    .select({ id: agentEndpoints.id, callbackUrl: agentEndpoints.callbackUrl })
    .from(agentEndpoints)
    .where(
      and(
        eq(agentEndpoints.status, 'active'),
        or(eq(agentEndpoints.personaId, personaId), eq(agentEndpoints.ownerId, ownerId)),
      ),
    )
    .orderBy(sql`${agentEndpoints.callbackUrl} IS NULL`, desc(agentEndpoints.id))
  return rows[0]
}

/**
 * POST /api/escalations/:coupleId/invite: for a committed couple, a fresh
 * one-time invite per owner (replacing that owner's unclaimed ones), each
 * handed to the owner's agent: a signed callback carrying the token, else a
 * notifications line WITHOUT the token (boards are public) telling the
 * agent to fetch it with its credential. A human of the chat page with no
 * agent is told nothing outside: its invite waits on its chat page
 * (GET /api/chat/me, its wallet's session only), delivery `chat`. The
 * caller must act for one of the owners, and sees only its own owner's token.
 */
export const createInvites = async (
  deps: VenueDeps,
  { actor, coupleId }: { actor: Actor; coupleId: number },
) => {
  const found = await coupleOwners(deps, coupleId, {
    missing: ESCALATION_ERRORS.coupleOwnersNotFound,
  })
  if (!found.ok) return found
  const { couple, members } = found
  if (members.length !== 2 || members.some((member) => member.ownerId === null))
    return refusal(404, ESCALATION_ERRORS.coupleOwnersNotFound)
  const callerOwner = ownerIdOf(actor)
  if (!members.some((member) => member.ownerId === callerOwner))
    return refusal(403, ESCALATION_ERRORS.ownerNotInCouple)
  if (couple.state !== 'committed' && couple.state !== 'brokered')
    return refusal(409, ESCALATION_ERRORS.notCommitted, { state: couple.state })
  const expiresAt = new Date(Date.now() + deps.inviteTtlSeconds * 1000)
  const perOwner = [...new Map(members.map((m) => [m.ownerId!, m.personaId])).entries()]
  const chatPersonas = new Set(
    members.filter((m) => m.model === HUMAN_MODEL).map((m) => m.personaId),
  )
  const minted = await deps.database.db.transaction(async (tx) =>
    Promise.all(
      perOwner.map(async ([ownerId, personaId]) => ({
        ownerId,
        personaId,
        token: await mintInvite(tx, { coupleId, ownerId, expiresAt }),
      })),
    ),
  )
  const delivered = await Promise.all(
    minted.map(async ({ ownerId, personaId, token }) => {
      const endpoint = await endpointFor(deps, ownerId, personaId)
      if (!endpoint && chatPersonas.has(personaId))
        return {
          ownerId,
          token: ownerId === callerOwner ? token : null,
          delivery: 'chat' as const,
        }
      const delivery = await notifyAgent(
        deps,
        endpoint,
        `owner-${ownerId}`,
        {
          type: 'invite',
          coupleId,
          ownerId,
          token,
          claimUrl: claimUrl(deps, token),
          expiresAt: expiresAt.toISOString(),
        },
        `an introduction invite for owner ${ownerId} of couple ${coupleId} is waiting; fetch it with GET /api/escalations/${coupleId}/invite and your credential`,
      )
      return { ownerId, token: ownerId === callerOwner ? token : null, delivery }
    }),
  )
  return { ok: true as const, invites: delivered, expiresAt: expiresAt.toISOString() }
}

/** GET /api/escalations/:coupleId/invite: the caller's owner's live invite (for agents told on the board). */
export const readOwnInvite = async (
  deps: VenueDeps,
  { actor, coupleId }: { actor: Actor; coupleId: number },
) => {
  const ownerId = ownerIdOf(actor)
  if (ownerId === undefined) return refusal(403, ESCALATION_ERRORS.notAnOwner)
  const [invite] = await deps.database.db
    .select()
    .from(invites)
    .where(
      and(
        eq(invites.coupleId, coupleId),
        eq(invites.ownerId, ownerId),
        isNull(invites.claimedAt),
        gt(invites.expiresAt, new Date()),
      ),
    )
    .orderBy(desc(invites.createdAt))
  if (!invite) return refusal(404, ESCALATION_ERRORS.noLiveInvite)
  return {
    ownerId,
    coupleId,
    token: invite.token,
    claimUrl: claimUrl(deps, invite.token),
    expiresAt: invite.expiresAt.toISOString(),
  }
}
