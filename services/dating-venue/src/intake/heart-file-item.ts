import { definePaidItem } from '@agents/payments'
import { eq } from 'drizzle-orm'
import { formatCredential, newSecret } from '../credentials/credentials.ts'
import { heartFiles, owners } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { priceOf } from '../orders/paid-item-text.ts'
import { recordPaidOrder } from '../orders/record-paid-order.ts'
import type { HeartFileBody } from './intake-schemas.ts'

/** doc_submit's price, from intake and from the chat page alike. */
const PRICE = { amount: 1_000_000n }

/** What a doc_submit payment buys, kept in the payment ledger until filed (contactRef sealed). */
export type HeartFileOrder = Omit<HeartFileBody, 'contactRef'> & { contactRefSealed: string | null }
export type HeartFileFulfilment = {
  ownerId: number
  heartFileId: number
  tier: string
  /** Sealed like contactRef: a retry of the paying request gets the credential it may have missed. */
  ownerCredentialSealed?: string
}

/**
 * doc_submit from intake: the doc is filed for the owner keyed by the paying
 * wallet (created on first payment, with its credential), in one
 * transaction with the ledger's record of it.
 */
export const heartFileItem = definePaidItem({
  kind: 'doc_submit',
  method: 'post',
  path: '/api/intake/heart-file',
  price: PRICE,
  body: 'legacy-v1',
  what: "file your human's dating doc (each resubmission is a new paid submission)",
  description: `doc_submit: file a dating doc (${priceOf(PRICE.amount)})`,
  outputSchema: { ownerId: 'integer', heartFileId: 'integer', tier: 'string' },
  product: (deps: VenueDeps) => ({
    fulfil: async (tx, order: HeartFileOrder, receipt): Promise<HeartFileFulfilment> => {
      const wallet = receipt.payer.startsWith('0x') ? receipt.payer.toLowerCase() : receipt.payer
      const { secret, hash } = newSecret()
      const [created] = await tx
        .insert(owners)
        .values({ wallet, credentialHash: hash })
        .onConflictDoNothing({ target: owners.wallet })
        .returning({ id: owners.id, tier: owners.tier })
      const owner =
        created ??
        (
          await tx
            .select({ id: owners.id, tier: owners.tier })
            .from(owners)
            .where(eq(owners.wallet, wallet))
        )[0]!
      const [file] = await tx
        .insert(heartFiles)
        .values({
          ownerId: owner.id,
          displayName: order.displayName ?? null,
          homeMarket: order.homeMarket,
          activeMarket: order.activeMarket,
          availableFor: order.availableFor ?? null,
          researchOptin: order.researchOptin,
          ageAttested: order.ageAttested,
          contactRefSealed: order.contactRefSealed,
          heart: order.heart,
          paymentReference: receipt.reference,
        })
        .returning({ id: heartFiles.id })
      // Its order (`doc_submit:<payment reference>`) and revenue, with the delivery.
      await recordPaidOrder(tx, { kind: 'doc_submit', ownerId: owner.id }, receipt)
      return {
        ownerId: owner.id,
        heartFileId: file!.id,
        tier: owner.tier,
        // Issued once, when the owner is created: it proves the owner on later calls.
        ...(created
          ? { ownerCredentialSealed: deps.sealer.seal(formatCredential('owner', owner.id, secret)) }
          : {}),
      }
    },
  }),
})
