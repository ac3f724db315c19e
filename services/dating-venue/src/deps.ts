import type { PaymentsDeps } from '@agents/payments'
import type { Logger } from '@agents/service-kit'
import type { VenueDatabase } from './db/open.ts'
import type { Embedder } from './embeddings/index.ts'
import type { Sealer } from './intake/seal.ts'
import type { ChatSettings } from './matchmaking/intro.ts'
import type { VenueSigner } from './notify/venue-signer.ts'
import type { SafetyCheck } from './safety/index.ts'
import type { VenueSettings } from './settings/settings.ts'

/** Everything the routes need, built once at start-up (start.ts) or by a test. */
export type VenueDeps = {
  database: VenueDatabase
  logger: Logger
  baseUrl: () => string
  payments: PaymentsDeps
  sealer: Sealer
  safety: SafetyCheck
  settings: VenueSettings
  servicePrefix: string
  nonceTtlSeconds: number
  reportThreshold: number
  callbacks: { allowHosts: readonly string[]; timeoutMs: number; maxBytes: number }
  adminToken: string | undefined
  /** Whether the client address comes from X-Forwarded-For (GEO_TRUST_FORWARDED_FOR). */
  trustForwardedFor: boolean
  embedder: Embedder
  signer: VenueSigner
  /** The matchmaker's chat model for opening lines, when configured. */
  chat: ChatSettings | undefined
  maxCourtships: number
}
