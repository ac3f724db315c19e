import type { App, AppEnv } from '@agents/service-kit'
import type { Context, MiddlewareHandler } from 'hono'
import type { Actor } from './credentials/actors.ts'
import type { ErasedBy } from './erasure/erase-owner.ts'

/** The signed-in wallet of a chat-session route, with the session's secret (to end it). */
export type ChatWallet = { wallet: string; attested: boolean; secret: string }

/**
 * Who a venue request speaks for: resolved once by the route's middleware
 * (`c.set`), read by its handler (`c.get`, a map lookup; `c.var` copies them all); logic then takes the resolved
 * value, never a header. Each is set only on the routes whose middleware
 * resolves it; each middleware exports the part it sets (`CredentialVariables`,
 * `HumanVariables`, `ChatWalletVariables`, `OperatorVariables`,
 * `ErasureVariables`, `AskerVariables`).
 */
export type VenueVariables = {
  /** `requireCredential`, `acceptCredential`: the owner or agent; null when an accepting route got none. */
  actor?: Actor | null
  /** `requireHuman`: the login subject. */
  human?: string
  /** `requireChatWallet`: the chat page's signed-in wallet. */
  chatWallet?: ChatWallet
  /** `requireOperator`, and erasure by the operator: a console wallet, or `token`. */
  operator?: string
  /** Erasure: the owner in the path. */
  ownerId?: number
  /** Erasure: who erases the owner. */
  eraser?: ErasedBy
  /** Asking the matchmaker: a human of the chat page, or an agent with a credential. */
  asker?: 'human' | 'agent'
}

export type VenueEnv = AppEnv<VenueVariables>
export type VenueApp = App<VenueVariables>
export type VenueContext = Context<VenueEnv>
export type VenueMiddleware = MiddlewareHandler<VenueEnv>
