import {
  CommaList,
  LimitSetting,
  limitSettings,
  loadConfig,
  refineBaseUrl,
  refineDatabase,
  serviceConfigShape,
} from '@agents/service-kit'
import { z } from 'zod'
import { EXACT_UP_TO } from './beat/pairing-defaults.ts'
import { EmbeddingsConfig } from './embeddings/index.ts'
import { GeoConfig } from './geo/geo-config.ts'
import { IdpConfig, refineIdpConfig } from './identity/idp-config.ts'
import { LoginConfig } from './identity/login-config.ts'
import { VENUE_LIMIT_DEFAULTS } from './limits/limit-defaults.ts'

const flag = z
  .enum(['0', '1', 'true', 'false'])
  .transform((value) => value === '1' || value === 'true')

/** Every VENUE_* and related setting (payments are PAYMENTS_*, geo is GEO_*). Documented in README.md. */
export const VenueConfig = z
  .object({
    ...GeoConfig.shape,
    ...EmbeddingsConfig.shape,
    ...LoginConfig.shape,
    ...IdpConfig.shape,
    ...serviceConfigShape({ port: 3002, dataDir: './data/dating-venue' }),
    /** Request limits per client, `RATE_LIMIT_<NAME>=points/seconds` (limits/limit-defaults.ts). */
    ...limitSettings(VENUE_LIMIT_DEFAULTS),
    /** The `<service_prefix>` of challenge nonces. */
    VENUE_SERVICE_PREFIX: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,31}$/)
      .default('venue'),
    /** Admitted personas at most; the operator setting `cap` overrides it at run time. */
    VENUE_CAP: z.coerce.number().int().min(0).max(10_000_000).default(500),
    /** Percent of the cap personas without an owner may hold; the operator setting `unowned_share_pct` overrides it. */
    VENUE_UNOWNED_SHARE_PCT: z.coerce.number().int().min(0).max(100).default(5),
    /** Personas a client enters without a credential, per window (429 beyond). */
    RATE_LIMIT_ANONYMOUS_PERSONA: z.string().default('10/3600').pipe(LimitSetting),
    /** Outbound calls one client's free requests may cause, per window (503 beyond). */
    VENUE_OUTBOUND_BUDGET_PER_CLIENT: z.string().default('120/3600').pipe(LimitSetting),
    /** Outbound calls all free requests together may cause, per window (503 beyond). */
    VENUE_OUTBOUND_BUDGET_GLOBAL: z.string().default('3000/3600').pipe(LimitSetting),
    /** Outbound calls paid requests (and owners) may cause, per window; free traffic cannot spend it. */
    VENUE_OUTBOUND_BUDGET_PAID: z.string().default('20000/3600').pipe(LimitSetting),
    /** Whether boards are readable before the operator opens the venue (setting `venue_open`). */
    VENUE_OPEN: flag.default(false),
    /** 32 bytes, base64: seals contactRef at rest. Required in production. */
    VENUE_CONTACT_KEY: z
      .string()
      .refine((value) => Buffer.from(value, 'base64').length === 32, 'expected 32 bytes, base64')
      .optional(),
    /** 32 bytes, base64: keys the hash an erased payment's reference becomes. Required in production. */
    VENUE_ERASURE_KEY: z
      .string()
      .refine((value) => Buffer.from(value, 'base64').length === 32, 'expected 32 bytes, base64')
      .optional(),
    VENUE_NONCE_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(600),
    /** Hosts a callback URL may use over http or on a private address: tests and local setups only. */
    VENUE_CALLBACK_ALLOW_HOSTS: CommaList,
    VENUE_CALLBACK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(5000),
    VENUE_CALLBACK_MAX_BYTES: z.coerce.number().int().min(256).max(1_048_576).default(65_536),
    /** Distinct reporters after which a reported item is held. */
    VENUE_REPORT_THRESHOLD: z.coerce.number().int().min(1).max(1000).default(3),
    /** Bearer token of the operator console; without it the console answers 404. */
    VENUE_ADMIN_TOKEN: z.string().min(24).optional(),
    /** Wallets that sign in to the console's page (SIWE), comma-separated; none: token only. */
    VENUE_OPERATOR_WALLETS: CommaList.pipe(
      z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected 0x and 40 hex digits')),
    ),
    /** An OpenAI-compatible moderation endpoint (base URL, e.g. https://api.openai.com/v1). */
    MODERATION_URL: z.string().url().optional(),
    MODERATION_API_KEY: z.string().optional(),
    MODERATION_MODEL: z.string().default('omni-moderation-latest'),
    SAFETY_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(3000),
    /** How often each replica tries the match beat (one runs it: advisory lock); 0 turns the schedule off. */
    VENUE_BEAT_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
    /** Active courtships a persona may hold at once. */
    VENUE_MAX_COURTSHIPS: z.coerce.number().int().min(1).max(10).default(1),
    /** Where the matchmaker saves its kept index after each beat and loads it at start; by default `<DATA_DIR>/match-pool`, none with an in-memory DATA_DIR. */
    VENUE_MATCH_POOL_DIR: z.string().min(1).optional(),
    /** Up to this many candidates the beat pairs by exact search; above it over the kept HNSW index. */
    VENUE_MATCH_EXACT_UP_TO: z.coerce.number().int().min(0).max(1_000_000).default(EXACT_UP_TO),
    /** The kept index process's niceness (0: the replica's own priority, 19: the lowest). */
    VENUE_MATCH_INDEX_NICENESS: z.coerce.number().int().min(0).max(19).default(10),
    /** ES256 key (PKCS#8 PEM or private JWK) signing what the venue sends agents; per process when unset. */
    VENUE_SIGNING_KEY: z.string().optional(),
    /** An OpenAI-compatible chat endpoint (base URL) for the matchmaker's opening lines. */
    MATCHMAKER_CHAT_URL: z.string().url().optional(),
    MATCHMAKER_CHAT_API_KEY: z.string().optional(),
    MATCHMAKER_CHAT_MODEL: z.string().default('gpt-4o-mini'),
    /** Lifetime of a one-time introduction invite. */
    VENUE_INVITE_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .max(30 * 86_400)
      .default(7 * 86_400),
    MATCHMAKER_CHAT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(8000),
    /** Live floor streams (GET /api/floor as text/event-stream) open at once on this replica; 503 beyond. */
    VENUE_FLOOR_MAX_STREAMS: z.coerce.number().int().min(1).max(100_000).default(1000),
    /** Live floor streams one client address may hold open at once; 503 beyond. */
    VENUE_FLOOR_MAX_STREAMS_PER_ADDRESS: z.coerce.number().int().min(1).max(10_000).default(8),
    /** How often the one floor poller of a replica reads new items for all its streams. */
    VENUE_FLOOR_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
    /** How long a paid featured post stays on top of its board and the floor. */
    VENUE_FEATURED_HOURS: z.coerce.number().int().min(1).max(720).default(24),
    /** Live featured posts a board holds at once; a full board answers 409 before payment. */
    VENUE_FEATURED_SLOTS: z.coerce.number().int().min(1).max(100).default(3),
    /** Where refund requests go (order id or transaction hash, within 7 days); shown in the documents. */
    VENUE_REFUNDS_EMAIL: z.string().email().optional(),
    /** How long a human's chat session (the signed-in wallet's cookie) lasts. */
    VENUE_CHAT_SESSION_HOURS: z.coerce.number().int().min(1).max(720).default(12),
    /** How long sealed chat text is kept before the sweep deletes it. */
    VENUE_CHAT_RETENTION_HOURS: z.coerce.number().int().min(1).max(720).default(24),
    /** Operational data (events, reports, held and blocked items, payment details): days kept. */
    VENUE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** Identity check sessions (statuses only): days kept after their last update. */
    VENUE_RETENTION_IDENTITY_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** Nonces, chat sessions, invites and unverified agent registrations: hours kept after expiry. */
    VENUE_RETENTION_EXPIRED_HOURS: z.coerce.number().int().min(0).max(8760).default(24),
    /** How often each replica tries the retention sweep (one runs it); 0 turns it off. */
    VENUE_RETENTION_SWEEP_MS: z.coerce.number().int().min(0).max(86_400_000).default(600_000),
    /** The studio token (ERC-20 on Base) whose holding sets a wallet's free chat messages. */
    VENUE_STUDIO_TOKEN: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/)
      .optional(),
    /** A read-only Base RPC for the holding. */
    VENUE_STUDIO_RPC_URL: z.string().url().optional(),
    /** A JSON price API for the token (`{ "usd": n }` or CoinGecko's `{ "<id>": { "usd": n } }`). */
    VENUE_STUDIO_PRICE_URL: z.string().url().optional(),
    /** The most the stored price may rise an hour, in basis points (1,000 = 10 %). */
    VENUE_STUDIO_PRICE_MAX_RISE_BPS: z.coerce.number().int().min(0).max(100_000).default(1000),
    /** How long the stored price stands while the source fails; then holdings count as 0. */
    VENUE_STUDIO_PRICE_STALE_HOURS: z.coerce.number().int().min(1).max(168).default(6),
  })
  .superRefine((config, context) => {
    refineIdpConfig(config, context)
    refineBaseUrl(config, context)
    refineDatabase(config, context)
    if (config.NODE_ENV !== 'production') return
    const require = (key: keyof typeof config, why: string) => {
      if (!config[key])
        context.addIssue({ code: 'custom', path: [key], message: `required in production: ${why}` })
    }
    require('VENUE_CONTACT_KEY', 'contactRef is sealed with it')
    require('VENUE_ERASURE_KEY', 'erased payments are recognised by it on every replica, across restarts')
    require('DATABASE_URL', 'replicas share one PostgreSQL')
    require('VENUE_ADMIN_TOKEN', 'the operator console must be protected')
    require('VENUE_SIGNING_KEY', 'agents verify what the venue sends with one stable key')
    if (config.VENUE_CALLBACK_ALLOW_HOSTS.length > 0)
      context.addIssue({
        code: 'custom',
        path: ['VENUE_CALLBACK_ALLOW_HOSTS'],
        message: 'not allowed in production',
      })
  })
export type VenueConfig = z.infer<typeof VenueConfig>

export const readConfig = (env: Record<string, string | undefined> = process.env) =>
  loadConfig(VenueConfig, env)
