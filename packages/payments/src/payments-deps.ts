import type { SettlementReader } from './chain/settlement-reader.ts'
import type { FacilitatorSettings } from './facilitator-client.ts'
import type { PaymentLedger } from './ledger/ledger.ts'
import type { MppAdapter } from './mpp/create-mpp-adapter.ts'
import type { X402Rail } from './types.ts'

/** The part of a pino logger the payment path writes to. */
export type PaymentsLogger = {
  error: (details: object, message: string) => void
  warn: (details: object, message: string) => void
  info: (details: object, message: string) => void
}

/** What a sale needs: the configured rails, the ledger, the chain reader. */
export type PaymentsDeps = {
  x402?: { rails: readonly X402Rail[]; facilitator: FacilitatorSettings }
  mpp?: MppAdapter
  ledger: PaymentLedger
  /** Read-only chain access that settles lost outcomes. */
  chain: SettlementReader
  /** How long a request may hold a payment it is settling before another may take it over. */
  leaseSeconds: number
  logger?: PaymentsLogger
}
