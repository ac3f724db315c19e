import { type Chain, createClient, http, isAddress } from 'viem'
import { tempo } from 'viem/chains'
import { z } from 'zod'
import { createSettlementReader } from './chain/settlement-reader.ts'
import { checkPaymentSettings } from './check-settings.ts'
import { PaymentsConfigError } from './errors.ts'
import { cdpAuthentication, readCdpSecret } from './facilitator-auth.ts'
import { createPaymentLedger, type LedgerDatabase } from './ledger/ledger.ts'
import { createMppAdapter } from './mpp/create-mpp-adapter.ts'
import type { PaymentsDeps, PaymentsLogger } from './payments-deps.ts'
import type { X402Rail } from './types.ts'
import { createFeePayerSource } from './x402/solana-fee-payer.ts'

const EvmAddress = z
  .string()
  .refine((value) => isAddress(value, { strict: false }), 'expected a 0x address')

/** The payment settings a paid service reads from its environment (npm start fills them from the devnet). */
export const PaymentsEnv = z.object({
  NODE_ENV: z.string().optional(),
  /** "1" when the settings point at the devnet: refused in production. */
  PAYMENTS_DEVNET: z.enum(['0', '1']).default('0'),
  PAYMENTS_FACILITATOR_URL: z.string().url().optional(),
  /** JSON object of headers sent to the facilitator (e.g. an API key). */
  PAYMENTS_FACILITATOR_HEADERS: z
    .string()
    .transform((text, context) => {
      try {
        return z.record(z.string(), z.string()).parse(JSON.parse(text))
      } catch {
        context.addIssue({ code: 'custom', message: 'expected a JSON object of strings' })
        return z.NEVER
      }
    })
    .optional(),
  /** `cdp`: every facilitator call carries a fresh CDP JWT made from CDP_API_KEY_ID / CDP_API_KEY_SECRET. */
  PAYMENTS_FACILITATOR_AUTH: z.enum(['none', 'cdp']).default('none'),
  CDP_API_KEY_ID: z.string().trim().min(1).optional(),
  CDP_API_KEY_SECRET: z.string().optional(),
  PAYMENTS_FACILITATOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Base JSON-RPC, read-only: resolves settlements whose facilitator answer was lost. */
  PAYMENTS_BASE_RPC_URL: z.string().url().optional(),
  /** How long a request holds a payment it settles before another may take over; default 2 x timeout + 5 s. */
  PAYMENTS_LEASE_SECONDS: z.coerce.number().int().min(1).max(3_600).optional(),
  /** How often the reconciler looks at unresolved payments. */
  PAYMENTS_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  PAYMENTS_PAY_TO: EvmAddress.optional(),
  PAYMENTS_BASE_USDC: EvmAddress.default('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
  PAYMENTS_SOLANA_PAY_TO: z
    .string()
    .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'expected a Solana address')
    .optional(),
  PAYMENTS_SOLANA_USDC: z.string().default('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
  /** While the facilitator has named no Solana fee payer, how often a challenge may ask it again. */
  PAYMENTS_SOLANA_FEE_PAYER_RETRY_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(30_000),
  /** How often a known Solana fee payer is read again from the facilitator's `/supported`. */
  PAYMENTS_SOLANA_FEE_PAYER_REFRESH_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(86_400_000)
    .default(600_000),
  PAYMENTS_MPP_SECRET: z.string().optional(),
  PAYMENTS_MPP_REALM: z.string().default('agent-services'),
  PAYMENTS_TEMPO_RPC_URL: z.string().url().optional(),
  PAYMENTS_TEMPO_CHAIN_ID: z.coerce.number().int().positive().default(4217),
  PAYMENTS_TEMPO_CURRENCY: EvmAddress.default('0x20C000000000000000000000b9537d11c60E8b50'),
  /** Defaults to PAYMENTS_PAY_TO. */
  PAYMENTS_MPP_RECIPIENT: EvmAddress.optional(),
})

const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
const CDP_HOST = 'api.cdp.coinbase.com'

/**
 * The facilitator's authentication, checked at start so that a bad key
 * stops the service instead of its first payment: adds each problem to
 * `problems` and answers the CDP secret `generateJwt` will sign with.
 */
const facilitatorAuthProblems = (
  settings: z.infer<typeof PaymentsEnv>,
  problems: string[],
): string | undefined => {
  const staticAuthorization = Object.keys(settings.PAYMENTS_FACILITATOR_HEADERS ?? {}).some(
    (name) => name.toLowerCase() === 'authorization',
  )
  if (settings.PAYMENTS_FACILITATOR_AUTH === 'none') {
    let host: string | undefined
    try {
      host = new URL(settings.PAYMENTS_FACILITATOR_URL ?? '').host
    } catch {}
    if (host === CDP_HOST && !staticAuthorization) {
      problems.push(
        `${CDP_HOST} needs PAYMENTS_FACILITATOR_AUTH=cdp with CDP_API_KEY_ID and CDP_API_KEY_SECRET`,
      )
    }
    return undefined
  }
  if (staticAuthorization) {
    problems.push(
      'PAYMENTS_FACILITATOR_HEADERS sets authorization, which PAYMENTS_FACILITATOR_AUTH=cdp sends itself',
    )
  }
  if (!settings.CDP_API_KEY_ID) problems.push('PAYMENTS_FACILITATOR_AUTH=cdp needs CDP_API_KEY_ID')
  if (!settings.CDP_API_KEY_SECRET?.trim()) {
    problems.push('PAYMENTS_FACILITATOR_AUTH=cdp needs CDP_API_KEY_SECRET')
    return undefined
  }
  const read = readCdpSecret(settings.CDP_API_KEY_SECRET)
  if ('problem' in read) {
    problems.push(read.problem)
    return undefined
  }
  return read.secret
}

/**
 * Builds the payment deps of a paid service from its environment, at
 * start-up: x402 on Base (and Solana when a Solana payee is set) through the
 * facilitator, MPP on Tempo when a secret and an RPC URL are set. The Solana
 * rail is offered only with the fee payer the facilitator publishes in its
 * `GET /supported` kinds (`extra.feePayer`), asked at once in the background
 * (`ready` resolves after that first answer) and again from the challenges
 * (see createFeePayerSource); until then the 402 offers Base and MPP. Refuses,
 * with every problem listed, settings that cannot take payments, and in
 * production (NODE_ENV=production) the devnet, test networks and missing
 * or local facilitators.
 */
export const paymentsFromEnv = (
  env: Record<string, string | undefined>,
  {
    db,
    logger,
    anonymizationKey,
  }: {
    db: LedgerDatabase
    logger?: PaymentsLogger
    /** The service's key for erasure (`PaymentLedgerOptions`): none, no anonymizing. */
    anonymizationKey?: Uint8Array | undefined
  },
): PaymentsDeps & { reconcileIntervalMs: number; ready: Promise<void> } => {
  const parsed = PaymentsEnv.safeParse(
    Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')),
  )
  if (!parsed.success) {
    throw new PaymentsConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    )
  }
  const settings = parsed.data
  const production = settings.NODE_ENV === 'production'
  const rails: X402Rail[] = []
  let solanaRail: X402Rail | undefined
  if (settings.PAYMENTS_PAY_TO) {
    rails.push({
      network: 'eip155:8453',
      asset: settings.PAYMENTS_BASE_USDC,
      payTo: settings.PAYMENTS_PAY_TO,
      extra: { name: 'USD Coin', version: '2' },
    })
  }
  if (settings.PAYMENTS_SOLANA_PAY_TO) {
    solanaRail = {
      network: SOLANA_MAINNET,
      asset: settings.PAYMENTS_SOLANA_USDC,
      payTo: settings.PAYMENTS_SOLANA_PAY_TO,
    }
    rails.push(solanaRail)
  }
  const mppWanted =
    settings.PAYMENTS_MPP_SECRET !== undefined || settings.PAYMENTS_TEMPO_RPC_URL !== undefined

  const problems: string[] = []
  if (!settings.PAYMENTS_FACILITATOR_URL) {
    problems.push(
      'PAYMENTS_FACILITATOR_URL is not set: start through `npm start` (devnet) or configure a facilitator',
    )
  }
  if (rails.length === 0) problems.push('PAYMENTS_PAY_TO is not set: no one to pay')
  if (mppWanted && !settings.PAYMENTS_TEMPO_RPC_URL)
    problems.push('MPP needs PAYMENTS_TEMPO_RPC_URL')
  if (mppWanted && !settings.PAYMENTS_MPP_SECRET) problems.push('MPP needs PAYMENTS_MPP_SECRET')
  const cdpSecret = facilitatorAuthProblems(settings, problems)
  if (problems.length > 0) throw new PaymentsConfigError(problems)

  checkPaymentSettings({
    production,
    devnet: settings.PAYMENTS_DEVNET === '1',
    x402: {
      rails,
      facilitatorUrl: settings.PAYMENTS_FACILITATOR_URL,
      baseRpcUrl: settings.PAYMENTS_BASE_RPC_URL,
    },
    ...(mppWanted
      ? {
          mpp: {
            chainId: settings.PAYMENTS_TEMPO_CHAIN_ID,
            secretKey: settings.PAYMENTS_MPP_SECRET,
          },
        }
      : {}),
  })

  const timeoutMs = settings.PAYMENTS_FACILITATOR_TIMEOUT_MS
  const cdp = cdpSecret
    ? cdpAuthentication({ id: settings.CDP_API_KEY_ID!, secret: cdpSecret })
    : undefined
  const facilitator = {
    url: settings.PAYMENTS_FACILITATOR_URL!,
    timeoutMs,
    ...(settings.PAYMENTS_FACILITATOR_HEADERS
      ? { headers: settings.PAYMENTS_FACILITATOR_HEADERS }
      : {}),
    ...(cdp ? { authenticate: cdp.authenticate } : {}),
  }
  const x402: NonNullable<PaymentsDeps['x402']> = { rails, facilitator }
  let ready = cdp ? cdp.ready : Promise.resolve()
  if (solanaRail) {
    // Never offer an accept the standard SVM client cannot pay: Solana goes
    // out only with the facilitator's fee payer in `extra.feePayer`.
    const solana = solanaRail
    const otherRails = rails.filter((rail) => rail !== solana)
    const feePayers = createFeePayerSource({
      facilitator,
      network: solana.network,
      logger,
      retryMs: settings.PAYMENTS_SOLANA_FEE_PAYER_RETRY_MS,
      refreshMs: settings.PAYMENTS_SOLANA_FEE_PAYER_REFRESH_MS,
    })
    ready = Promise.all([ready, feePayers.refresh()]).then(() => undefined)
    Object.defineProperty(x402, 'rails', {
      enumerable: true,
      get: (): X402Rail[] => {
        feePayers.refreshIfDue()
        const feePayer = feePayers.current()
        return feePayer
          ? [...otherRails, { ...solana, extra: { ...solana.extra, feePayer } }]
          : otherRails
      },
    })
  }
  const deps: PaymentsDeps & { reconcileIntervalMs: number; ready: Promise<void> } = {
    x402,
    ready,
    ledger: createPaymentLedger(db, { anonymizationKey }),
    chain: createSettlementReader({
      baseRpcUrl: settings.PAYMENTS_BASE_RPC_URL,
      tempo: settings.PAYMENTS_TEMPO_RPC_URL
        ? { rpcUrl: settings.PAYMENTS_TEMPO_RPC_URL, chainId: settings.PAYMENTS_TEMPO_CHAIN_ID }
        : undefined,
    }),
    // A request holds its payment through verify and settle (one facilitator timeout each).
    leaseSeconds: settings.PAYMENTS_LEASE_SECONDS ?? Math.ceil((2 * timeoutMs) / 1000) + 5,
    reconcileIntervalMs: settings.PAYMENTS_RECONCILE_INTERVAL_MS,
    ...(logger ? { logger } : {}),
  }
  if (mppWanted) {
    const chain: Chain = {
      ...tempo,
      id: settings.PAYMENTS_TEMPO_CHAIN_ID,
      rpcUrls: { default: { http: [settings.PAYMENTS_TEMPO_RPC_URL!] } },
    }
    const client = createClient({
      chain,
      transport: http(settings.PAYMENTS_TEMPO_RPC_URL),
      pollingInterval: 250,
    })
    deps.mpp = createMppAdapter({
      secretKey: settings.PAYMENTS_MPP_SECRET!,
      realm: settings.PAYMENTS_MPP_REALM,
      chainId: settings.PAYMENTS_TEMPO_CHAIN_ID,
      currency: settings.PAYMENTS_TEMPO_CURRENCY as `0x${string}`,
      recipient: (settings.PAYMENTS_MPP_RECIPIENT ?? settings.PAYMENTS_PAY_TO) as `0x${string}`,
      getClient: () => client,
    })
  }
  return deps
}
