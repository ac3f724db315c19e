import {
  CommaList,
  ForwardedTrustSetting,
  limitSettings,
  loadConfig,
  refineBaseUrl,
  refineDatabase,
  serviceConfigShape,
} from '@agents/service-kit'
import { z } from 'zod'
import { RAIL_LIMIT_DEFAULTS } from './limits/limit-defaults.ts'

const seconds = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback)

/** A bound on open rows: a whole number, or `off` (no bound: benches, a trusted single client). */
const bound = (fallback: number) =>
  z
    .string()
    .default(String(fallback))
    .transform((value, context) => {
      if (value === 'off') return undefined
      if (/^\d{1,7}$/.test(value) && Number(value) >= 1 && Number(value) <= 1_000_000)
        return Number(value)
      context.addIssue({ code: 'custom', message: 'a whole number 1..1000000, or off' })
      return z.NEVER
    })

/** Every SWAP_* setting (payments are PAYMENTS_*, read by @agents/payments). Documented in README.md. */
export const SwapRailConfig = z
  .object({
    ...serviceConfigShape({ port: 3003, dataDir: './data/swap-rail' }),
    /** Request limits per client, `RATE_LIMIT_<NAME>=points/seconds` (limits/limit-defaults.ts). */
    ...limitSettings(RAIL_LIMIT_DEFAULTS),
    TRUST_FORWARDED_FOR: ForwardedTrustSetting,
    /** Open offers one payTo may have at once (the book bound per seller). */
    SWAP_MAX_OPEN_OFFERS_PER_SELLER: bound(20),
    /** Open offers one client (address group) may have posted, whatever their payTo. */
    SWAP_MAX_OPEN_OFFERS_PER_CLIENT: bound(100),
    /** Intents one client may have waiting or matched and unpaid at once. */
    SWAP_MAX_OPEN_INTENTS_PER_CLIENT: bound(20),
    SWAP_FEE_BPS: z.coerce.number().int().min(1).max(5000).default(100),
    SWAP_OFFER_TTL_SECONDS: seconds(7 * 24 * 3600, 365 * 24 * 3600),
    SWAP_INTENT_TTL_SECONDS: seconds(3600, 30 * 24 * 3600),
    SWAP_PAYMENT_WINDOW_SECONDS: seconds(900, 24 * 3600),
    SWAP_GRANT_TTL_MINUTES: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .default(15),
    SWAP_REDEMPTION_WINDOW_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 30)
      .default(24),
    SWAP_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
    /** The hub's ES256 signing key: PKCS#8 PEM or a private JWK (JSON). Generated per process when unset (not in production). */
    SWAP_GRANT_SIGNING_KEY: z.string().optional(),
    /** Hosts an offer endpoint may use over http or on a private address: local setups and tests only. */
    SWAP_DEV_ENDPOINT_HOSTS: CommaList,
    SWAP_MAX_MTOK: z.coerce.number().int().min(1).max(100_000).default(100_000),
    /** Highest accepted price, USD per MTok. */
    SWAP_MAX_PRICE_USD: z.coerce.number().int().min(1).max(1000).default(1000),
    /** The sample 402 of POST /v1/pay: its amount (USDC atomic units) and the seller of its sample split. */
    SWAP_SAMPLE_AMOUNT: z.coerce.bigint().min(1n).default(1_000_000n),
    SWAP_SAMPLE_SELLER: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/)
      .optional(),
  })
  .superRefine((config, context) => {
    refineBaseUrl(config, context)
    refineDatabase(config, context)
    if (config.NODE_ENV !== 'production') return
    if (!config.SWAP_GRANT_SIGNING_KEY)
      context.addIssue({
        code: 'custom',
        path: ['SWAP_GRANT_SIGNING_KEY'],
        message: 'required in production: every replica must sign grants with the same key',
      })
    if (config.SWAP_DEV_ENDPOINT_HOSTS.length > 0)
      context.addIssue({
        code: 'custom',
        path: ['SWAP_DEV_ENDPOINT_HOSTS'],
        message: 'not allowed in production',
      })
    if (!config.DATABASE_URL)
      context.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message: 'required in production: replicas share one PostgreSQL',
      })
  })
export type SwapRailConfig = z.infer<typeof SwapRailConfig>

export const readConfig = (env: Record<string, string | undefined> = process.env) =>
  loadConfig(SwapRailConfig, env)
