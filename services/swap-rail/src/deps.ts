import type { PaymentsDeps } from '@agents/payments'
import type { ForwardedTrust, Logger } from '@agents/service-kit'
import type { Address } from 'viem'
import type { SwapDatabase } from './db/open.ts'
import type { GrantSigner } from './grants/grant-signer.ts'
import type { BookBounds } from './limits/book-bounds.ts'
import type { Windows } from './matching/match-book.ts'

/** Everything the routes need, built once at start-up (start.ts) or by a test. */
export type SwapDeps = {
  database: SwapDatabase
  logger: Logger
  /** The hub's public base URL (known once the server listens when not configured). */
  baseUrl: () => string
  windows: Windows & {
    offerTtlSeconds: number
    redemptionWindowHours: number
  }
  fee: { bps: number; recipient: Address }
  limits: { maxMtok: number; maxPriceUsd: number }
  /** How many open offers and intents one seller or client may have at once. */
  bounds: BookBounds
  /** How much of X-Forwarded-For to believe when naming a client (TRUST_FORWARDED_FOR). */
  trustForwardedFor: ForwardedTrust
  /** Hosts an offer endpoint may use over http or on a private address (local setups, tests). */
  devEndpointHosts: readonly string[]
  grants: GrantSigner
  payments: PaymentsDeps
  /** The sample 402 of POST /v1/pay and /.well-known/x402. */
  sample: { amount: bigint; seller: Address }
}
