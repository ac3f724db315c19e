import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { lookup } from 'node:dns/promises'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type CdpFacilitator,
  createCdpApiKey,
  type Devnet,
  startCdpFacilitator,
  startDevnet,
} from '@agents/devnet'
import { freePort } from '@agents/payments/testing'
import { createTestDatabase } from '@agents/service-kit/db'
import { type NextUpstreamProxy, startNextUpstreamProxy } from './next-upstream-proxy.ts'
import { type ProductionInstall, productionInstall } from './production-install.ts'
import {
  type ProductionService,
  type ServiceName,
  startProductionService,
} from './production-service.ts'
import { createTestCertificates } from './test-ca.ts'

/** One replica: how to start it again on the same address (a rolling restart). */
export type Replica = {
  name: string
  service: ServiceName
  env: Record<string, string>
  current: ProductionService
  /** SIGTERM, wait for the exit (its code), start again with the same settings. */
  restart: () => Promise<{ exitCode: number | null; stoppedMs: number; startMs: number }>
}

export type Rehearsal = {
  install: ProductionInstall
  devnet: Devnet
  /** The CDP facilitator stand-in: its URL, and every call with its JWT's verdict. */
  facilitator: CdpFacilitator
  /** The operator's secrets, as the environment gave them to the services. */
  secrets: { metricsToken: string; venueAdminToken: string }
  databases: { rail: string; venue: string; router: string }
  router: Replica
  rails: Replica[]
  venues: Replica[]
  /** The round-robin proxies in front of the replicas (the clients' way in). */
  railProxy: NextUpstreamProxy
  venueProxy: NextUpstreamProxy
  stop: () => Promise<void>
}

/** Promise.all that waits for every promise, so that nothing started is left untracked when one fails. */
const settled = async <const promises extends readonly unknown[]>(
  promises: promises,
): Promise<{ -readonly [key in keyof promises]: Awaited<promises[key]> }> => {
  const results = await Promise.allSettled(promises)
  const failed = results.find((result) => result.status === 'rejected')
  if (failed) throw failed.reason
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as never
}

const es256Pem = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString()

/**
 * The deployment of compose.yaml on one machine, from a production install
 * (`productionInstall`): PostgreSQL (a fresh database per service on
 * `serverUrl`, migrated by the services themselves as they start), the
 * payment network of the devnet (Base with USDC and Tempo, on anvil) with
 * its facilitator behind HTTPS on this machine's own name and a CA made for
 * the run, the launch router, two replicas each of the rail and the venue,
 * each pair behind a round-robin proxy that tries the next replica on a
 * refused connection. Every setting and secret reaches the services through
 * their environment, as production's (docs/operations.md).
 *
 * @example const rehearsal = await startRehearsal(process.env.TEST_DATABASE_URL!)
 */
export const startRehearsal = async (
  serverUrl: string,
  { embeddingsUrl }: { embeddingsUrl: string },
): Promise<Rehearsal> => {
  const cleanups: (() => Promise<unknown>)[] = []
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {})
  }
  try {
    const folder = await mkdtemp(join(tmpdir(), 'agent-services-rehearsal-secrets-'))
    cleanups.push(() => rm(folder, { recursive: true, force: true }))
    // The facilitator is named as a public one is: by a host name (this
    // machine's, which resolves to itself), over https, which the payments'
    // production check asks for, never a loopback or private address.
    const facilitatorHost = hostname()
    const track =
      <value>(cleanup: (started: value) => () => Promise<unknown>) =>
      (started: value) => {
        cleanups.push(cleanup(started))
        return started
      }
    const freshDatabase = () =>
      createTestDatabase(serverUrl).then(track((database) => database.drop))
    const [install, devnet, certificates, { address }, rail, venue, router] = await settled([
      // A fresh install goes when the run ends; a reused one is the operator's.
      productionInstall().then(
        track(
          (done) => () =>
            done.ms > 0 ? rm(done.dir, { recursive: true, force: true }) : Promise.resolve(),
        ),
      ),
      startDevnet().then(track((devnet) => devnet.stop)),
      createTestCertificates(folder, facilitatorHost),
      lookup(facilitatorHost, { family: 4 }),
      freshDatabase(),
      freshDatabase(),
      freshDatabase(),
    ] as const)
    // Coinbase's facilitator as the services meet it: over HTTPS, every call
    // with a fresh CDP JWT, one API key per service (one of each kind CDP issues).
    const cdpKeys = { rail: createCdpApiKey('ec'), venue: createCdpApiKey('ed25519') }
    const facilitator = await startCdpFacilitator({
      upstream: devnet.facilitator.url,
      keys: Object.values(cdpKeys),
      tls: { cert: certificates.cert, key: certificates.key },
      address,
      hostname: facilitatorHost,
    })
    cleanups.push(facilitator.stop)

    const secrets = {
      metricsToken: randomBytes(24).toString('hex'),
      venueAdminToken: randomBytes(24).toString('hex'),
    }
    const tempo = devnet.tempo!
    const payments = {
      PAYMENTS_FACILITATOR_URL: facilitator.url,
      PAYMENTS_FACILITATOR_AUTH: 'cdp',
      PAYMENTS_BASE_RPC_URL: devnet.base.rpcUrl,
      PAYMENTS_BASE_USDC: devnet.base.usdc,
      PAYMENTS_PAY_TO: devnet.accounts.payee,
      PAYMENTS_TEMPO_RPC_URL: tempo.rpcUrl,
      PAYMENTS_TEMPO_CHAIN_ID: String(tempo.chainId),
      PAYMENTS_TEMPO_CURRENCY: tempo.currency,
    }
    const common = {
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      METRICS_TOKEN: secrets.metricsToken,
      NODE_EXTRA_CA_CERTS: certificates.caFile,
    }
    const railEnv = {
      ...common,
      ...payments,
      BASE_URL: 'https://rail.rehearsal.example',
      DATABASE_URL: rail.url,
      TRUST_FORWARDED_FOR: '1',
      PAYMENTS_MPP_SECRET: randomBytes(32).toString('hex'),
      CDP_API_KEY_ID: cdpKeys.rail.id,
      CDP_API_KEY_SECRET: cdpKeys.rail.secret,
      SWAP_GRANT_SIGNING_KEY: es256Pem(),
    }
    const venueEnv = {
      ...common,
      ...payments,
      BASE_URL: 'https://venue.rehearsal.example',
      DATABASE_URL: venue.url,
      TRUST_FORWARDED_FOR: '1',
      GEO_TRUST_FORWARDED_FOR: '1',
      PAYMENTS_MPP_SECRET: randomBytes(32).toString('hex'),
      CDP_API_KEY_ID: cdpKeys.venue.id,
      CDP_API_KEY_SECRET: cdpKeys.venue.secret,
      VENUE_CONTACT_KEY: randomBytes(32).toString('base64'),
      VENUE_ERASURE_KEY: randomBytes(32).toString('base64'),
      VENUE_SIGNING_KEY: es256Pem(),
      VENUE_ADMIN_TOKEN: secrets.venueAdminToken,
      VENUE_OPEN: 'true',
      EMBEDDINGS_URL: embeddingsUrl,
      EMBEDDINGS_MODEL: 'rehearsal-embeddings',
    }
    const routerEnv = {
      ...common,
      BASE_URL: 'https://router.rehearsal.example',
      RATE_LIMIT_DATABASE_URL: router.url,
      MINER_THREADS: '1',
    }

    const replica = async (
      service: ServiceName,
      name: string,
      settings: Record<string, string>,
    ): Promise<Replica> => {
      const dataDir = join(install.dir, 'data', name)
      await mkdir(dataDir, { recursive: true })
      const env = { ...settings, PORT: String(await freePort()), DATA_DIR: dataDir }
      const started: Replica = {
        name,
        service,
        env,
        current: await startProductionService(install.dir, service, env, name),
        restart: async () => {
          const stopping = performance.now()
          const exitCode = await started.current.stop()
          const stoppedMs = Math.round(performance.now() - stopping)
          started.current = await startProductionService(install.dir, service, env, name)
          return { exitCode, stoppedMs, startMs: started.current.startMs }
        },
      }
      cleanups.push(() => started.current.stop())
      return started
    }
    // All at once, as compose starts them: the replicas of a service race to
    // migrate their empty database (the migration lock decides).
    const [routerReplica, rail1, rail2, venue1, venue2] = await settled([
      replica('launch-router', 'router', routerEnv),
      replica('swap-rail', 'rail-1', railEnv),
      replica('swap-rail', 'rail-2', railEnv),
      replica('dating-venue', 'venue-1', venueEnv),
      replica('dating-venue', 'venue-2', venueEnv),
    ])
    const rails = [rail1, rail2]
    const venues = [venue1, venue2]
    const railProxy = await startNextUpstreamProxy(rails.map((one) => one.current.url))
    const venueProxy = await startNextUpstreamProxy(venues.map((one) => one.current.url))
    cleanups.push(railProxy.close, venueProxy.close)
    return {
      install,
      devnet,
      facilitator,
      secrets,
      databases: { rail: rail.url, venue: venue.url, router: router.url },
      router: routerReplica,
      rails,
      venues,
      railProxy,
      venueProxy,
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}
