import { randomBytes } from 'node:crypto'
import { definePaidItem, paymentLedger } from '@agents/payments'
import { refusal } from '@agents/service-kit'
import { and, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm'
import { HELD_FOR_REVIEW, insertPersona } from '../admission/persona-state.ts'
import { newSecret } from '../credentials/credentials.ts'
import { events, heartFiles, owners } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import type { Heart } from '../heart/heart-schema.ts'
import { itemPrice } from '../orders/paid-item-text.ts'
import { recordPaidOrder } from '../orders/record-paid-order.ts'
import { heartFileItem } from './heart-file-item.ts'
import { HUMAN_MODEL, handleTaken, SUBMIT_DOC_ERRORS, walletRefusal } from './submit-doc-checks.ts'

export const SUBMIT_DOC_PATH = '/api/chat/submit-doc'

/**
 * The payment ledger's name for this product: its own, so the reconciler
 * delivers a settled payment as this route does (a persona held for review),
 * not as intake's doc_submit. The order and its revenue are `doc_submit`.
 */
export const CHAT_DOC_KIND = 'doc_submit_chat'

/** What a doc_submit payment from the chat page buys, kept in the payment ledger until filed. */
export type SubmitDocOrder = {
  wallet: string
  handle: string
  heart: Heart
  contactRefSealed: string | null
  homeMarket: string
  activeMarket: string
}
export type SubmitDocFulfilment = { personaId: number; ownerId: number; orderId: string }

const randomVowels = () => Array.from(randomBytes(6), (byte) => 'aeiou'[byte % 5]).join('')

/**
 * doc_submit from the chat page: the persona, its doc and the owner keyed by
 * the signed-in wallet (not the paying one: a friend may pay), entered held
 * for review, in one transaction with the ledger's record and the order.
 * Its price is intake's doc_submit.
 */
export const chatDocItem = definePaidItem({
  kind: CHAT_DOC_KIND,
  name: 'doc_submit',
  method: 'post',
  path: SUBMIT_DOC_PATH,
  price: heartFileItem.price,
  body: 'legacy-v1',
  what: 'a human on the chat page submits the doc drafted with the matchmaker: a persona bound to the signed-in wallet, held for review until an operator approves it (the floor entry rule first: 18+ attested, a studio token holding worth $50, the chaperone passing the heart; nothing is charged for a refusal)',
  description: `doc_submit: submit your drafted dating doc for review (${itemPrice(heartFileItem)})`,
  outputSchema: { personaId: 'integer', review: 'string', orderId: 'string' },
  product: (_deps: VenueDeps) => ({
    // A new payment, in its claim's transaction and before it moves: the wallet's checks again
    // (a request carrying a payment skipped them, so that a retry is answered by the ledger).
    hold: async (tx, order: SubmitDocOrder, reference) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`submit-doc:${order.wallet}`}))`)
      const refused = await walletRefusal(tx, order.wallet, order.handle)
      if (refused) return refused
      const [inFlight] = await tx
        .select({ count: sql<number>`count(*)::int` })
        .from(paymentLedger)
        .where(
          and(
            eq(paymentLedger.kind, CHAT_DOC_KIND),
            sql`${paymentLedger.order}->>'wallet' = ${order.wallet}`,
            ne(paymentLedger.reference, reference),
            or(
              inArray(paymentLedger.state, ['claimed', 'settling', 'unknown']),
              and(eq(paymentLedger.state, 'settled'), isNull(paymentLedger.fulfilment)),
            ),
          ),
        )
      return (inFlight?.count ?? 0) > 0
        ? refusal(409, SUBMIT_DOC_ERRORS.inFlight, {}, { 'retry-after': '2' })
        : undefined
    },
    fulfil: async (tx, order, receipt): Promise<SubmitDocFulfilment> => {
      // The wallet's login is SIWE: this credential is never issued, only a hash the row needs.
      const [created] = await tx
        .insert(owners)
        .values({ wallet: order.wallet, credentialHash: newSecret().hash })
        .onConflictDoNothing({ target: owners.wallet })
        .returning({ id: owners.id })
      const owner =
        created ??
        (await tx.select({ id: owners.id }).from(owners).where(eq(owners.wallet, order.wallet)))[0]!
      await tx.insert(heartFiles).values({
        ownerId: owner.id,
        homeMarket: order.homeMarket,
        activeMarket: order.activeMarket,
        researchOptin: 'none',
        ageAttested: true,
        contactRefSealed: order.contactRefSealed,
        heart: order.heart,
        paymentReference: receipt.reference,
      })
      const personaId = await insertPersona(
        tx,
        {
          // Paid for: a handle another doc took since the check must not leave the payment undelivered.
          handle: (await handleTaken(tx, order.handle))
            ? `${order.handle}-${randomVowels()}`
            : order.handle,
          model: HUMAN_MODEL,
          heart: order.heart,
          ownerId: owner.id,
          homeMarket: order.homeMarket,
          activeMarket: order.activeMarket,
        },
        { status: 'held', reason: HELD_FOR_REVIEW },
      )
      const orderId = await recordPaidOrder(tx, { kind: 'doc_submit', ownerId: owner.id }, receipt)
      await tx
        .insert(events)
        .values({ kind: 'persona_submitted_for_review', detail: { personaId, ownerId: owner.id } })
      return { personaId, ownerId: owner.id, orderId }
    },
  }),
})
