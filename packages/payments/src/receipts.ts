import { Receipt } from 'mppx'
import {
  encodeBase64Json,
  PAYMENT_RECEIPT_HEADER,
  PAYMENT_RESPONSE_HEADER,
  X_PAYMENT_RESPONSE_HEADER,
} from './headers.ts'
import type { LedgerRow } from './ledger/ledger-table.ts'
import type { PaymentReceipt } from './types.ts'

/** The receipt of a settlement found on-chain (its settle answer was lost). */
export const receiptFromChain = (row: LedgerRow, transaction: string): PaymentReceipt => {
  const proof = row.proof as { version?: 1 | 2 }
  const receipt: PaymentReceipt = {
    rail: row.rail,
    ...(row.rail === 'x402' ? { version: proof.version ?? 2 } : {}),
    network: row.network,
    payer: row.payer,
    amount: row.amount.toString(),
    transaction,
    reference: row.reference,
  }
  // Fixed now (MPP's carries a timestamp), so every retry gets the same header.
  return { ...receipt, header: receiptHeader(receipt) }
}

/** The rail's receipt header for a receipt, the same on the first answer and on every retry. */
export const receiptHeader = (receipt: PaymentReceipt): [string, string] => {
  if (receipt.header) return receipt.header
  if (receipt.rail === 'mpp')
    return [
      PAYMENT_RECEIPT_HEADER,
      Receipt.serialize({
        method: 'tempo',
        status: 'success',
        reference: receipt.transaction,
        timestamp: new Date().toISOString(),
      }),
    ]
  return [
    receipt.version === 1 ? X_PAYMENT_RESPONSE_HEADER : PAYMENT_RESPONSE_HEADER,
    encodeBase64Json({
      success: true,
      transaction: receipt.transaction,
      network: receipt.network,
      payer: receipt.payer,
    }),
  ]
}
