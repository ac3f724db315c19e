import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  paymentsFromEnv,
  productsOf,
  type ReconcileResult,
  startReconciler,
} from '@agents/payments'
import {
  createLogger,
  createMetrics,
  createRequestLimits,
  databaseOptions,
  type Logger,
  limitPolicies,
  type RunningServer,
  serve,
} from '@agents/service-kit'
import { buildApp, SERVICE_NAME } from './app.ts'
import { runBeat, scheduledCycleId } from './beat/beat.ts'
import { FOLLOW_EVERY_MS, followIndex } from './beat/index-follow.ts'
import { createMatchIndex } from './beat/match-index.ts'
import { gaugeBudgets } from './budget/gauge-budgets.ts'
import { createVenueBudget } from './budget/venue-budget.ts'
import type { VenueConfig } from './config.ts'
import { countToday } from './db/day-counters.ts'
import { openVenueDatabase } from './db/open.ts'
import { events } from './db/schema.ts'
import { createSealer } from './db/seal.ts'
import type { VenueDeps } from './deps.ts'
import { embedderFromConfig } from './embeddings/index.ts'
import { createVenueFloorHub } from './floor/floor-hubs.ts'
import { toGeoGateOptions } from './geo/geo-config.ts'
import { geoGate } from './geo/geo-gate.ts'
import { studioHoldings } from './holdings/studio-holdings.ts'
import { createIdpClient } from './identity/idp-client.ts'
import { toIdpClientParameters } from './identity/idp-config.ts'
import { toLoginVerifierConfig } from './identity/login-config.ts'
import { createLoginVerifier } from './identity/login-token.ts'
import { verifyWebhook } from './identity/webhook.ts'
import { VENUE_LIMIT_DEFAULTS } from './limits/limit-defaults.ts'
import { registerVenueGauges } from './metrics/register-venue-gauges.ts'
import { venueJobMetrics } from './metrics/venue-job-metrics.ts'
import { createVenueSigner } from './notify/venue-signer.ts'
import { PAID_ITEMS } from './paid-items.ts'
import { retentionPeriods, sweepRetention } from './retention/retention.ts'
import { createSafetyCheck } from './safety/index.ts'
import { createVenueSettings } from './settings/settings.ts'
import { VENUE_COUNTING } from './venue-counting.ts'
import { takeNonce } from './wallet-session/wallet-session.ts'

export type Venue = RunningServer & {
  deps: VenueDeps
  /** One pass of the payment reconciler now (it also runs at start and on a timer). */
  reconcileNow: () => Promise<ReconcileResult | undefined>
}

// One replica at a time reconciles the payment ledger (the swap rail's lock number differs).
const RECONCILE_LOCK = 7_246_104

/**
 * A 32-byte key of the venue's: configured (required in production), else
 * one kept in `DATA_DIR/<file>` so a local venue on PGlite keeps it across
 * restarts; with nowhere to keep it (PostgreSQL, or data in memory), one
 * per process.
 */
const keptKey = (
  config: VenueConfig,
  logger: Logger,
  { setting, file }: { setting: 'VENUE_CONTACT_KEY' | 'VENUE_ERASURE_KEY'; file: string },
) => {
  const configured = config[setting]
  if (configured) return Buffer.from(configured, 'base64')
  logger.warn(`${setting} unset: using a local development key`)
  if (config.DATABASE_URL || config.DATA_DIR.startsWith('memory://')) return randomBytes(32)
  const path = join(config.DATA_DIR, file)
  if (existsSync(path)) return Buffer.from(readFileSync(path, 'utf8').trim(), 'base64')
  mkdirSync(config.DATA_DIR, { recursive: true })
  const key = randomBytes(32)
  writeFileSync(path, key.toString('base64'), { mode: 0o600 })
  return key
}

/** The contactRef key (AES-256-GCM seals contactRef at rest). */
const contactKey = (config: VenueConfig, logger: Logger) =>
  keptKey(config, logger, { setting: 'VENUE_CONTACT_KEY', file: 'contact.key' })

/**
 * The erasure key: an erased payment's reference becomes its keyed hash
 * under it, and the ledger recognises that payment presented again by it.
 */
const erasureKey = (config: VenueConfig, logger: Logger) =>
  keptKey(config, logger, { setting: 'VENUE_ERASURE_KEY', file: 'erasure.key' })

/** The kept index's snapshot directory: beside the data unless the data is in memory. */
const matchPoolDir = (config: VenueConfig) =>
  config.VENUE_MATCH_POOL_DIR ??
  (config.DATA_DIR.startsWith('memory://') ? undefined : join(config.DATA_DIR, 'match-pool'))

/** Opens the database, builds payments, safety, settings and the gate, and starts the server. */
export const startVenue = async (
  config: VenueConfig,
  env: Record<string, string | undefined> = process.env,
  { handleSignals = false }: { handleSignals?: boolean } = {},
): Promise<Venue> => {
  const logger = createLogger({ name: SERVICE_NAME, level: config.LOG_LEVEL })
  const database = await openVenueDatabase(databaseOptions(config))
  const payments = paymentsFromEnv(env, {
    db: database.db,
    logger,
    anonymizationKey: erasureKey(config, logger),
  })
  let baseUrl = config.BASE_URL ?? `http://${config.HOST}:${config.PORT}`
  // A SIWE login token names the venue's origin and spends a nonce the venue issued, as the chat page's sign-in does.
  const verifyLogin = createLoginVerifier(
    { ...toLoginVerifierConfig(config), siweOrigin: () => new URL(baseUrl).origin },
    { useSiweNonce: (nonce) => takeNonce({ database }, nonce) },
  )
  const webhookSecret = config.IDP_WEBHOOK_SECRET
  // Process metrics (event loop, memory) stay off in tests, which start many venues in one process.
  const metrics = createMetrics({
    service: SERVICE_NAME,
    processMetrics: config.NODE_ENV !== 'test',
  })
  const counted = (target: string) => (outcome: 'ok' | 'error') =>
    metrics.outbound.inc({ target, outcome })
  const budget = await createVenueBudget({
    database,
    policies: {
      perClient: config.VENUE_OUTBOUND_BUDGET_PER_CLIENT,
      global: config.VENUE_OUTBOUND_BUDGET_GLOBAL,
      paid: config.VENUE_OUTBOUND_BUDGET_PAID,
      anonymousPersona: config.RATE_LIMIT_ANONYMOUS_PERSONA,
    },
    remote: { moderation: !!config.MODERATION_URL, embeddings: !!config.EMBEDDINGS_URL },
    metrics,
  })
  gaugeBudgets(metrics, budget.outbound)
  const embedder = embedderFromConfig(config, { onCall: counted('embeddings') })
  const deps: VenueDeps = {
    database,
    logger,
    metrics,
    budget,
    baseUrl: () => baseUrl,
    payments,
    sealer: createSealer(contactKey(config, logger)),
    safety: createSafetyCheck({
      ...(config.MODERATION_URL
        ? {
            moderation: {
              url: config.MODERATION_URL,
              model: config.MODERATION_MODEL,
              timeoutMs: config.SAFETY_TIMEOUT_MS,
              ...(config.MODERATION_API_KEY ? { apiKey: config.MODERATION_API_KEY } : {}),
            },
          }
        : {}),
      onCall: counted('moderation'),
    }),
    settings: createVenueSettings(database, {
      cap: config.VENUE_CAP,
      venueOpen: config.VENUE_OPEN,
      unownedSharePct: config.VENUE_UNOWNED_SHARE_PCT,
    }),
    servicePrefix: config.VENUE_SERVICE_PREFIX,
    nonceTtlSeconds: config.VENUE_NONCE_TTL_SECONDS,
    reportThreshold: config.VENUE_REPORT_THRESHOLD,
    callbacks: {
      allowHosts: config.VENUE_CALLBACK_ALLOW_HOSTS,
      timeoutMs: config.VENUE_CALLBACK_TIMEOUT_MS,
      maxBytes: config.VENUE_CALLBACK_MAX_BYTES,
    },
    adminToken: config.VENUE_ADMIN_TOKEN,
    operatorWallets: config.VENUE_OPERATOR_WALLETS.map((wallet) => wallet.toLowerCase()),
    trustForwardedFor: config.GEO_TRUST_FORWARDED_FOR,
    embedder,
    matchPool: createMatchIndex({
      modelId: embedder.modelId,
      database,
      listenUrl: config.DATABASE_DIRECT_URL ?? config.DATABASE_URL,
      dir: matchPoolDir(config),
      exactUpTo: config.VENUE_MATCH_EXACT_UP_TO,
      niceness: config.VENUE_MATCH_INDEX_NICENESS,
      logger,
    }),
    signer: await createVenueSigner(config.VENUE_SIGNING_KEY),
    chat: config.MATCHMAKER_CHAT_URL
      ? {
          url: config.MATCHMAKER_CHAT_URL,
          apiKey: config.MATCHMAKER_CHAT_API_KEY,
          model: config.MATCHMAKER_CHAT_MODEL,
          timeoutMs: config.MATCHMAKER_CHAT_TIMEOUT_MS,
          onCall: counted('model'),
        }
      : undefined,
    maxCourtships: config.VENUE_MAX_COURTSHIPS,
    inviteTtlSeconds: config.VENUE_INVITE_TTL_SECONDS,
    featured: { hours: config.VENUE_FEATURED_HOURS, slotsPerBoard: config.VENUE_FEATURED_SLOTS },
    refundsEmail: config.VENUE_REFUNDS_EMAIL,
    humanChat: {
      siweDomain: () => config.VENUE_LOGIN_SIWE_DOMAIN ?? new URL(baseUrl).host,
      origin: () => new URL(baseUrl).origin,
      sessionHours: config.VENUE_CHAT_SESSION_HOURS,
      retentionHours: config.VENUE_CHAT_RETENTION_HOURS,
      secureCookie: () => config.NODE_ENV === 'production' || baseUrl.startsWith('https:'),
    },
    holdings: studioHoldings(config, database),
    floor: createVenueFloorHub(() => deps, {
      intervalMs: config.VENUE_FLOOR_POLL_MS,
      maxStreams: config.VENUE_FLOOR_MAX_STREAMS,
      maxStreamsPerAddress: config.VENUE_FLOOR_MAX_STREAMS_PER_ADDRESS,
    }),
    login: {
      verify: async (token) => {
        const result = await verifyLogin(token)
        return result.ok
          ? { ok: true, subject: result.subject }
          : { ok: false, reason: result.reason }
      },
      url: config.VENUE_LOGIN_URL,
    },
    identity: {
      // Built per call: the callback page's address is known once the server listens.
      client: config.IDP_BASE_URL
        ? {
            createSession: (input) =>
              createIdpClient(toIdpClientParameters(config, baseUrl)!).createSession(input),
          }
        : undefined,
      verifyWebhook: (input) =>
        webhookSecret
          ? verifyWebhook({ ...input, secret: webhookSecret })
          : { ok: false, reason: 'no identity provider configured' },
    },
  }
  const gate = geoGate(
    toGeoGateOptions(config, async (country) => {
      await Promise.all([
        database.db
          .insert(events)
          .values({ kind: 'geo_denied', detail: { country: country ?? null } }),
        countToday(database.db, 'geo_denied'),
      ])
    }),
  )
  registerVenueGauges(deps)
  const stopFollowing = followIndex(deps, { everyMs: FOLLOW_EVERY_MS })
  const jobs = venueJobMetrics(deps.metrics)
  const reconciler = startReconciler(payments, productsOf(PAID_ITEMS, deps), {
    intervalMs: payments.reconcileIntervalMs,
    exclusive: async (work) => {
      try {
        const pass = await database.withLock(RECONCILE_LOCK, work)
        jobs.reconcilerRuns.inc({ outcome: pass.ran ? 'ran' : 'skipped' })
        return pass
      } catch (error) {
        jobs.reconcilerRuns.inc({ outcome: 'failed' })
        throw error
      }
    },
  })
  const interval = config.VENUE_BEAT_INTERVAL_MS
  const timer =
    interval > 0
      ? setInterval(() => {
          const started = performance.now()
          const took = () => (performance.now() - started) / 1000
          runBeat(deps, { cycleId: scheduledCycleId(interval), scheduled: true }).then(
            (result) => {
              if (result.ran) jobs.beatDuration.observe({ outcome: 'ok' }, took())
              if (result.ran && result.value.created > 0) logger.info(result.value, 'beat')
            },
            (error: unknown) => {
              jobs.beatDuration.observe({ outcome: 'failed' }, took())
              logger.error({ err: error }, 'beat failed')
            },
          )
        }, interval)
      : undefined
  timer?.unref()
  // Retention (sealed chat text included): one replica sweeps at a time (README, "Data retention").
  const sweepEvery = config.VENUE_RETENTION_SWEEP_MS
  const retentionSweep =
    sweepEvery > 0
      ? setInterval(() => {
          sweepRetention(database, retentionPeriods(config)).then(
            (result) => {
              if (result.ran) logger.debug(result.counts, 'retention sweep')
            },
            (error: unknown) => logger.error({ err: error }, 'retention sweep failed'),
          )
        }, sweepEvery)
      : undefined
  retentionSweep?.unref()
  const { floor } = deps
  // On PostgreSQL the counters live there (table `rate_limits`), shared by every replica.
  const limits = await createRequestLimits({
    service: SERVICE_NAME,
    policies: limitPolicies(config, VENUE_LIMIT_DEFAULTS),
    counters: { database },
    ...VENUE_COUNTING,
    trustForwardedFor: config.GEO_TRUST_FORWARDED_FOR,
  })
  const server = await serve(
    buildApp(deps, {
      gate,
      limits,
      maxBodyBytes: config.MAX_BODY_BYTES,
      metricsToken: config.METRICS_TOKEN,
    }),
    {
      port: config.PORT,
      host: config.HOST,
      logger,
      handleSignals,
      // Open floor streams would hold the drain until the forced exit.
      onClosing: () => floor.close(),
      onClose: async () => {
        clearInterval(timer)
        clearInterval(retentionSweep)
        await reconciler.stop()
        await deps.embedder.close()
        stopFollowing()
        await deps.matchPool.close()
        await database.close()
      },
    },
  )
  if (!config.BASE_URL) baseUrl = server.url
  logger.info({ url: server.url, database: database.kind }, 'venue listening')
  return { ...server, deps, reconcileNow: reconciler.runNow }
}
