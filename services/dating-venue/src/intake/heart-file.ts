import { createHash } from 'node:crypto'
import { type Product, sellOnce } from '@agents/payments'
import { eq } from 'drizzle-orm'
import { formatCredential, newSecret } from '../credentials/credentials.ts'
import { heartFiles, owners } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { recordPaidOrder } from '../orders/record-paid-order.ts'
import type { HeartFileBody } from './intake-schemas.ts'
import { type PrecheckProblem, precheckHeartFile } from './precheck-heart-file.ts'

/** doc_submit: 1.00 USDC. */
export const DOC_SUBMIT_PRICE = { amount: 1_000_000n }

/** What a doc_submit payment buys, kept in the payment ledger until filed (contactRef sealed). */
type HeartFileOrder = Omit<HeartFileBody, 'contactRef'> & { contactRefSealed: string | null }
type HeartFileFulfilment = {
  ownerId: number
  heartFileId: number
  tier: string
  /** Sealed like contactRef: a retry of the paying request gets the credential it may have missed. */
  ownerCredentialSealed?: string
}

/**
 * doc_submit as the payment ledger sells it: the doc is filed for the owner
 * keyed by the paying wallet (created on first payment, with its
 * credential), in one transaction with the ledger's record of it.
 */
export const heartFilePayment = (
  deps: VenueDeps,
): Product<HeartFileOrder, HeartFileFulfilment> => ({
  kind: 'doc_submit',
  fulfil: async (tx, order, receipt) => {
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
  answer: ({ ownerCredentialSealed, ...filed }) =>
    Response.json(
      {
        ...filed,
        ...(ownerCredentialSealed
          ? { ownerCredential: deps.sealer.open(ownerCredentialSealed) }
          : {}),
      },
      { status: 200 },
    ),
})

export type SubmitHeartFileParameters = {
  body: HeartFileBody
  /** The paying request: its payment headers are read by the ledger. */
  request: Request
}

/**
 * POST /api/intake/heart-file after validation: the prechecks, then the
 * doc_submit payment through the ledger, which files the doc once per
 * payment; a retry of the same request with the same payment gets the same
 * answer (the same heartFileId and, for a new owner, the same credential).
 * The payment's answer (402, 503 or the filed doc) is the ledger's response.
 */
export const submitHeartFile = async (
  deps: VenueDeps,
  { body, request }: SubmitHeartFileParameters,
): Promise<PrecheckProblem | { ok: true; response: Response }> => {
  const problem = precheckHeartFile(body)
  if (problem) return problem
  const { contactRef, ...rest } = body
  const response = await sellOnce(deps.payments, request, {
    price: DOC_SUBMIT_PRICE,
    resource: {
      url: '/api/intake/heart-file',
      description: 'doc_submit: file a dating doc (1.00 USDC)',
      outputSchema: { ownerId: 'integer', heartFileId: 'integer', tier: 'string' },
    },
    body: 'legacy-v1',
    product: heartFilePayment(deps),
    order: { ...rest, contactRefSealed: contactRef ? deps.sealer.seal(contactRef) : null },
    // The request as validated, hashed: the same payment may only ever file this doc.
    requestKey: `heart-file:${createHash('sha256').update(JSON.stringify(body)).digest('hex')}`,
  })
  return { ok: true, response }
}
