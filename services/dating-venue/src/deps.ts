import type { PaymentsDeps } from '@agents/payments'
import type { ForwardedTrust, Logger, Metrics } from '@agents/service-kit'
import type { ChatSettings } from './ask-matchmaker/chat-settings.ts'
import type { MatchIndex } from './beat/match-index.ts'
import type { VenueBudget } from './budget/venue-budget.ts'
import type { VenueDatabase } from './db/open.ts'
import type { Sealer } from './db/seal.ts'
import type { Embedder } from './embeddings/index.ts'
import type { FloorHub } from './floor/floor-hub.ts'
import type { IdpEvent } from './identity/types.ts'
import type { VenueSigner } from './notify/venue-signer.ts'
import type { SafetyCheck } from './safety/index.ts'
import type { VenueSettings } from './settings/settings.ts'
import type { HumanChatSettings } from './wallet-session/human-chat-settings.ts'

/** Everything the routes need, built once at start-up (start.ts) or by a test. */
export type VenueDeps = {
  database: VenueDatabase
  logger: Logger
  /** Prometheus counters and gauges, served on GET /metrics to METRICS_TOKEN (README, "Metrics"). */
  metrics: Metrics
  /** Outbound budgets (model, moderation, embeddings) and the anonymous-persona limit (README, "Outbound budgets"). */
  budget: VenueBudget
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
  /** Lower-case wallets that may sign in to the console (VENUE_OPERATOR_WALLETS). */
  operatorWallets: readonly string[]
  /** How much of X-Forwarded-For gives the client address (GEO_TRUST_FORWARDED_FOR: false, true or a number of proxies). */
  trustForwardedFor: ForwardedTrust
  embedder: Embedder
  /** The matchmaker's kept index of personas waiting for a partner, in its own process (beat/match-index.ts). */
  matchPool: MatchIndex
  signer: VenueSigner
  /** The matchmaker's chat model for opening lines, when configured. */
  chat: ChatSettings | undefined
  maxCourtships: number
  /** Login tokens of humans (the claim page): trusted issuers, SIWE. */
  login: {
    verify: (
      token: string,
    ) => Promise<{ ok: true; subject: string } | { ok: false; reason: string }>
    /** Where the claim page sends the human to sign in. */
    url: string | undefined
  }
  identity: {
    /** The identity provider, when configured. */
    client:
      | {
          createSession: (input: {
            vendorData: string
          }) => Promise<
            { ok: true; sessionId: string; url: string } | { ok: false; reason: string }
          >
        }
      | undefined
    /** Checks a webhook delivery on its raw bytes; the body is parsed only after the signature passes. */
    verifyWebhook: (input: {
      rawBody: Uint8Array
      signature: string | undefined
      timestamp: string | undefined
    }) => { ok: true; event: IdpEvent } | { ok: false; reason: string }
  }
  inviteTtlSeconds: number
  /** Paid featured slots: how long one lasts and how many a board holds at once. */
  featured: { hours: number; slotsPerBoard: number }
  /** Where refund requests are sent, when configured. */
  refundsEmail: string | undefined
  /** The human chat page's sign-in and sessions. */
  humanChat: HumanChatSettings
  /** The live floor's one poller and its stream limits (closed on shutdown). */
  floor: FloorHub
  /** What a wallet's studio token holding is worth, in US cents (0 when no token is configured). */
  holdings: (wallet: string) => Promise<bigint>
}
