import { createHmac } from 'node:crypto'
import { type AnyTransaction, pgArray, rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'

/** How an anonymized reference starts: what follows is a keyed hash, never a payment's parts. */
export const ANONYMIZED_PREFIX = 'erased:'

/** The shortest key `anonymizedReference` takes (HMAC-SHA256 wants 32 bytes). */
export const MIN_ANONYMIZATION_KEY_BYTES = 32

/**
 * What an erased payment's reference becomes: `erased:` and the hex
 * HMAC-SHA256 of the reference under the service's key. Keyed, not a bare
 * hash: every part of a reference is public on its chain (the EIP-3009
 * authorizer and nonce in USDC's `AuthorizationUsed` event, an MPP
 * transaction's hash), so anyone could hash every payment on the chain and
 * find a bare hash again, payer included. With the key only its holder can
 * tell which payment it was, which is what lets the ledger still refuse the
 * same payment presented again.
 */
export const anonymizedReference = (key: Uint8Array, reference: string) =>
  `${ANONYMIZED_PREFIX}${createHmac('sha256', key).update(reference).digest('hex')}`

/** A key `anonymizedReference` may use: refused when it is too short to be a secret. */
export const checkAnonymizationKey = (key: Uint8Array) => {
  if (key.length < MIN_ANONYMIZATION_KEY_BYTES)
    throw new Error(
      `the anonymization key has ${key.length} bytes: at least ${MIN_ANONYMIZATION_KEY_BYTES} are needed`,
    )
  return key
}

/**
 * What erasing an owner means for the ledger's table: its payments'
 * rows stay, anonymized (`anonymizePayments`, or `ledger.anonymize` with the
 * ledger's key). A service's erasure declares its tables' parts from these.
 */
export const PAYMENT_LEDGER_ERASES = { payment_ledger: 'anonymized' } as const

/** Which ledger rows an erasure anonymizes: any row that matches one of these. */
export type PaymentsToAnonymize = {
  /** References as sold (`x402:...`, `mpp:...`). */
  references?: readonly string[]
  /**
   * Paying wallets (0x addresses, any letter case): rows whose `payer` is
   * one, and x402 EVM rows whose reference names one as the authorizer (a
   * retention sweep may have cleared the `payer` column, never the reference).
   */
  payers?: readonly string[]
  /** Request keys, whole. */
  requestKeys?: readonly string[]
  /** Request keys that start with one of these (`ask:0xabc...:`). */
  requestKeyPrefixes?: readonly string[]
}

/** One anonymized row: the reference it had and the keyed hash it holds now. */
export type AnonymizedPayment = { reference: string; anonymized: string }

const texts = (values: readonly string[]) => sql`${pgArray(values)}::text[]`

/**
 * Erasure, in the caller's transaction: every matching ledger row keeps
 * what accounting needs (kind, state, rail, network, amount, payee, settle
 * count, dates) and loses everything that names or points at its payer:
 * the reference becomes its keyed hash (`anonymizedReference`), and the
 * payer, proof, order, receipt, fulfilment, detail and request key are
 * cleared. A ledger built with the same key (`createPaymentLedger`'s
 * `anonymizationKey`) still finds the row when the same payment is
 * presented again, and refuses it as used. Rows anonymized before are left
 * as they are. Answers each row's reference and what it is now, for the
 * service's own copies of references (order ids, order columns).
 */
export const anonymizePayments = async (
  tx: AnyTransaction,
  key: Uint8Array,
  { references = [], payers = [], requestKeys = [], requestKeyPrefixes = [] }: PaymentsToAnonymize,
): Promise<AnonymizedPayment[]> => {
  checkAnonymizationKey(key)
  const wallets = payers.map((payer) => payer.toLowerCase())
  // The x402 EVM reference is x402:eip155:<chain>:<asset>:<from>:<nonce>; its 5th part is the payer.
  const rows = rowsOf<{ reference: string }>(
    await tx.execute(sql`
      SELECT reference FROM payment_ledger
      WHERE NOT starts_with(reference, ${ANONYMIZED_PREFIX})
        AND (reference = ANY(${texts(references)})
          OR lower(payer) = ANY(${texts(wallets)})
          OR (starts_with(reference, 'x402:eip155:')
              AND split_part(reference, ':', 5) = ANY(${texts(wallets)}))
          OR request_key = ANY(${texts(requestKeys)})
          OR EXISTS (SELECT 1 FROM unnest(${texts(requestKeyPrefixes)}) AS p(prefix)
                     WHERE starts_with(request_key, p.prefix)))
      ORDER BY reference
      FOR UPDATE`),
  )
  const anonymized = rows.map(({ reference }) => ({
    reference,
    anonymized: anonymizedReference(key, reference),
  }))
  if (anonymized.length === 0) return anonymized
  const from = texts(anonymized.map((row) => row.reference))
  const to = texts(anonymized.map((row) => row.anonymized))
  // A payment already on record anonymized (a copy claimed while an erasure ran) keeps that row.
  await tx.execute(sql`
    DELETE FROM payment_ledger AS l USING unnest(${from}, ${to}) AS m(reference, anonymized)
    WHERE l.reference = m.reference
      AND EXISTS (SELECT 1 FROM payment_ledger AS e WHERE e.reference = m.anonymized)`)
  await tx.execute(sql`
    UPDATE payment_ledger AS l
    SET reference = m.anonymized, payer = '', proof = '{}'::jsonb, "order" = NULL,
        receipt = NULL, fulfilment = NULL, detail = NULL, request_key = ''
    FROM unnest(${from}, ${to}) AS m(reference, anonymized)
    WHERE l.reference = m.reference`)
  return anonymized
}
