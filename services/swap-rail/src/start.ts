import {
  paymentsFromEnv,
  productsOf,
  type ReconcileResult,
  startReconciler,
} from '@agents/payments'
import {
  ConfigError,
  createLogger,
  createRequestLimits,
  databaseOptions,
  limitPolicies,
  type RunningServer,
  serve,
} from '@agents/service-kit'
import { type Address, getAddress, isAddress } from 'viem'
import { buildApp, SERVICE_NAME } from './app.ts'
import type { SwapRailConfig } from './config.ts'
import { openSwapDatabase } from './db/open.ts'
import type { SwapDeps } from './deps.ts'
import { createGrantSigner } from './grants/grant-signer.ts'
import { RAIL_LIMIT_DEFAULTS } from './limits/limit-defaults.ts'
import { matchCredentialOf } from './limits/match-credential.ts'
import { PAID_ITEMS } from './matches/match-item.ts'
import { createRailMetrics } from './metrics/create-rail-metrics.ts'
import { sweep } from './sweep/sweep.ts'

export type SwapRail = RunningServer & {
  deps: SwapDeps
  sweepNow: () => ReturnType<typeof sweep>
  /** One pass of the payment reconciler now (it also runs at start and on a timer). */
  reconcileNow: () => Promise<ReconcileResult | undefined>
}

// One replica at a time reconciles the payment ledger.
const RECONCILE_LOCK = 7_246_004

/**
 * The hub's fee recipient is PAYMENTS_PAY_TO: the second recipient of every
 * seller split on Base and the MPP recipient on Tempo, so the two must agree.
 */
const feeRecipientOf = (env: Record<string, string | undefined>): Address => {
  const payTo = env.PAYMENTS_PAY_TO
  if (!payTo || !isAddress(payTo, { strict: false }))
    throw new ConfigError([
      'PAYMENTS_PAY_TO: required: the hub fee recipient (second recipient of every split)',
    ])
  const mpp = env.PAYMENTS_MPP_RECIPIENT
  if (mpp && mpp.toLowerCase() !== payTo.toLowerCase())
    throw new ConfigError([
      'PAYMENTS_MPP_RECIPIENT: must equal PAYMENTS_PAY_TO (the hub fee recipient) or be unset',
    ])
  return getAddress(payTo)
}

/** Opens the database, builds the payment rails and the grant signer, starts the sweep and the server. */
export const startSwapRail = async (
  config: SwapRailConfig,
  env: Record<string, string | undefined> = process.env,
  { handleSignals = false }: { handleSignals?: boolean } = {},
): Promise<SwapRail> => {
  const logger = createLogger({ name: SERVICE_NAME, level: config.LOG_LEVEL })
  const feeRecipient = feeRecipientOf(env)
  const database = await openSwapDatabase(databaseOptions(config))
  const payments = paymentsFromEnv(env, { db: database.db, logger })
  let baseUrl = config.BASE_URL ?? `http://${config.HOST}:${config.PORT}`
  const grants = await createGrantSigner({
    signingKey: config.SWAP_GRANT_SIGNING_KEY,
    issuer: () => baseUrl,
    ttlMinutes: config.SWAP_GRANT_TTL_MINUTES,
  })
  if (!config.SWAP_GRANT_SIGNING_KEY)
    logger.warn('SWAP_GRANT_SIGNING_KEY unset: grants are signed with a per-process key')
  const metrics = createRailMetrics({ client: database.client, logger })
  const deps: SwapDeps = {
    database,
    logger,
    baseUrl: () => baseUrl,
    windows: {
      intentTtlSeconds: config.SWAP_INTENT_TTL_SECONDS,
      paymentWindowSeconds: config.SWAP_PAYMENT_WINDOW_SECONDS,
      offerTtlSeconds: config.SWAP_OFFER_TTL_SECONDS,
      redemptionWindowHours: config.SWAP_REDEMPTION_WINDOW_HOURS,
    },
    fee: { bps: config.SWAP_FEE_BPS, recipient: feeRecipient },
    limits: { maxMtok: config.SWAP_MAX_MTOK, maxPriceUsd: config.SWAP_MAX_PRICE_USD },
    bounds: {
      offersPerSeller: config.SWAP_MAX_OPEN_OFFERS_PER_SELLER,
      offersPerClient: config.SWAP_MAX_OPEN_OFFERS_PER_CLIENT,
      intentsPerClient: config.SWAP_MAX_OPEN_INTENTS_PER_CLIENT,
      onFull: (name) => metrics.limited.inc({ limit: name }),
    },
    trustForwardedFor: config.TRUST_FORWARDED_FOR,
    devEndpointHosts: config.SWAP_DEV_ENDPOINT_HOSTS,
    grants,
    payments,
    sample: {
      amount: config.SWAP_SAMPLE_AMOUNT,
      seller: getAddress(config.SWAP_SAMPLE_SELLER ?? feeRecipient),
    },
  }
  // Each route's class is declared with the route; the match routes count per
  // match id (`capability: 'match'`), with made-up ids (404) counted per address.
  const requestLimits = await createRequestLimits({
    service: SERVICE_NAME,
    policies: limitPolicies(config, RAIL_LIMIT_DEFAULTS),
    counters: { database },
    unlisted: { read: 'read' },
    credentials: { match: matchCredentialOf },
    credentialFailures: 'unknown-match',
    credentialFailureStatuses: [404],
    trustForwardedFor: config.TRUST_FORWARDED_FOR,
  })
  const reconciler = startReconciler(payments, productsOf(PAID_ITEMS, deps), {
    intervalMs: payments.reconcileIntervalMs,
    exclusive: async (work) => {
      try {
        const pass = await database.withLock(RECONCILE_LOCK, work)
        metrics.reconcilerRuns.inc({ outcome: pass.ran ? 'ran' : 'skipped' })
        return pass
      } catch (error) {
        metrics.reconcilerRuns.inc({ outcome: 'failed' })
        throw error
      }
    },
  })
  const sweepNow = () => sweep(database, deps.windows)
  const timer = setInterval(() => {
    sweepNow().then(
      (result) => {
        if (result.ran && (result.expiredMatches || result.rematched)) logger.info(result, 'sweep')
      },
      (error: unknown) => logger.error({ err: error }, 'sweep failed'),
    )
  }, config.SWAP_SWEEP_INTERVAL_MS)
  timer.unref()

  const app = buildApp(deps, {
    maxBodyBytes: config.MAX_BODY_BYTES,
    requestLimits,
    metrics,
    metricsToken: config.METRICS_TOKEN,
  })
  const server = await serve(app, {
    port: config.PORT,
    host: config.HOST,
    logger,
    handleSignals,
    onClose: async () => {
      clearInterval(timer)
      await reconciler.stop()
      await database.close()
    },
  })
  if (!config.BASE_URL) baseUrl = server.url
  logger.info({ url: server.url, database: database.kind, feeRecipient }, 'swap rail listening')
  return { ...server, deps, sweepNow, reconcileNow: reconciler.runNow }
}
