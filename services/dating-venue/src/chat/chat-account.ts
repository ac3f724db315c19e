import { readDraft } from '../ask-matchmaker/drafts.ts'
import { usedToday } from '../ask-matchmaker/usage.ts'
import type { VenueDeps } from '../deps.ts'
import { chatEscalation } from '../escalation/chat-escalation.ts'
import { holdingTier } from '../holdings/free-messages.ts'
import { reviewStatus } from '../intake/submit-doc.ts'
import { CREDITS_PER_MESSAGE, creditBalance } from '../orders/credits.ts'

const dollars = (cents: bigint) => `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`

/** What the chat page shows at a glance for a signed-in wallet. */
export const chatAccount = async (
  deps: Pick<VenueDeps, 'database' | 'holdings' | 'baseUrl'>,
  wallet: string,
  attested: boolean,
  now = new Date(),
) => {
  const holding = await deps.holdings(wallet)
  const tier = holdingTier(holding)
  const used = await usedToday(deps.database, wallet, now)
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))
  return {
    wallet,
    attested,
    freePerDay: tier.messages,
    freeLeft: Math.max(0, tier.messages - used),
    credits: await creditBalance(deps.database.db, wallet),
    creditsPerMessage: CREDITS_PER_MESSAGE,
    holdingUsd: dollars(holding < 0n ? 0n : holding),
    nextTier: tier.next
      ? { freePerDay: tier.next.messages, moreUsd: dollars(tier.next.moreCents) }
      : null,
    resetsAt: midnight.toISOString(),
    ...(await readDraft(deps.database, wallet)),
    review: await reviewStatus(deps, wallet),
    escalation: await chatEscalation(deps, wallet),
  }
}
