import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs'
import { type LedgerDatabase, paymentsFromEnv } from '@agents/payments'
import { loadEs256Key } from '@agents/service-kit'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { readConfig as readVenueConfig } from '../services/dating-venue/src/config.ts'
import { readConfig as readRouterConfig } from '../services/launch-router/src/config.ts'
import { readConfig as readRailConfig } from '../services/swap-rail/src/config.ts'

// compose.yaml cannot be run here (no Docker daemon): these checks read it as
// Docker Compose would and hold it to what the services themselves demand in
// production, through their own config schemas, so that a setting a service
// comes to require, or a secret written into the file, fails here first.

type ComposeService = {
  image?: string
  command?: string[]
  environment?: Record<string, string>
  volumes?: string[]
  profiles?: string[]
}
type Compose = { services: Record<string, ComposeService> }

const root = new URL('../', import.meta.url)
const text = (path: string) => readFileSync(new URL(path, root), 'utf8')
// `merge`: the file shares settings through YAML merge keys (`<<`), as Compose reads them.
const compose = parse(text('compose.yaml'), { merge: true }) as Compose

/** The services this repository can run: the folders of services/ with a main.ts. */
const runnable = readdirSync(new URL('services/', root)).filter((name) =>
  existsSync(new URL(`services/${name}/src/main.ts`, root)),
)

/**
 * What an operator's `.env` would hold: one sample per variable compose.yaml
 * interpolates, each valid for what it is. A variable compose.yaml starts to
 * use without a sample here fails the test, naming it.
 */
const es256Pem = async () => {
  const { generateKeyPairSync } = await import('node:crypto')
  return generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString()
    .replaceAll('\n', '')
}
const samples = async (): Promise<Record<string, string>> => ({
  METRICS_TOKEN: 'a-metrics-token-of-32-characters',
  PAYMENTS_FACILITATOR_URL: 'https://facilitator.example.com',
  PAYMENTS_FACILITATOR_AUTH: 'none',
  BASE_RPC_URL: 'https://base.rpc.example.com',
  TEMPO_RPC_URL: 'https://tempo.rpc.example.com',
  ROUTER_BASE_URL: 'https://router.example.com',
  RAIL_BASE_URL: 'https://rail.example.com',
  VENUE_BASE_URL: 'https://venue.example.com',
  POSTGRES_PASSWORD: 'c0ffee',
  ROUTER_DB_PASSWORD: 'c0ffee01',
  RAIL_DB_PASSWORD: 'c0ffee02',
  VENUE_DB_PASSWORD: 'c0ffee03',
  SWAP_GRANT_SIGNING_KEY: await es256Pem(),
  VENUE_SIGNING_KEY: await es256Pem(),
  RAIL_PAY_TO: '0x00000000000000000000000000000000000000a1',
  VENUE_PAY_TO: '0x00000000000000000000000000000000000000a2',
  RAIL_MPP_SECRET: 'r'.repeat(64),
  VENUE_MPP_SECRET: 'v'.repeat(64),
  VENUE_CONTACT_KEY: Buffer.alloc(32, 1).toString('base64'),
  VENUE_ERASURE_KEY: Buffer.alloc(32, 2).toString('base64'),
  VENUE_ADMIN_TOKEN: 'an-operator-token-of-32-characters',
  ACME_EMAIL: 'ops@example.com',
})

const INTERPOLATION = /\$\{([A-Z0-9_]+)(?:(:\?|:-)([^}]*))?\}/g

/** A value as Compose resolves it from `env`; `missing` lists the required variables it lacked. */
const resolve = (value: string, env: Record<string, string>) => {
  const missing: string[] = []
  const resolved = String(value).replace(INTERPOLATION, (_, name: string, kind, fallback) => {
    if (env[name] !== undefined) return env[name]
    if (kind === ':?') missing.push(name)
    return kind === ':-' ? fallback : ''
  })
  return { resolved, missing }
}

const environmentOf = (service: ComposeService, env: Record<string, string>) => {
  const missing: string[] = []
  const resolved = Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([key, value]) => {
      const result = resolve(value, env)
      missing.push(...result.missing)
      return [key, result.resolved]
    }),
  )
  return { env: resolved, missing }
}

/** Every problem a service's production start-up would report for `env` (none: it starts). */
const productionProblems = (name: string, env: Record<string, string>): string[] => {
  const problems = (work: () => unknown) => {
    try {
      work()
      return []
    } catch (error) {
      return (error as { problems?: string[] }).problems ?? [String(error)]
    }
  }
  if (name === 'launch-router') return problems(() => readRouterConfig(env))
  const payments = problems(() => paymentsFromEnv(env, { db: {} as LedgerDatabase }))
  if (name === 'swap-rail') return [...problems(() => readRailConfig(env)), ...payments]
  if (name === 'dating-venue') return [...problems(() => readVenueConfig(env)), ...payments]
  return [`no production check for ${name}`]
}

const appServices = Object.entries(compose.services).filter(([, service]) =>
  service.command?.some((word) => runnable.includes(word)),
)

describe('compose.yaml', () => {
  it('runs every service of the repository, the rail and the venue twice, from one image', () => {
    const replicas = (name: string) =>
      appServices.filter(([, service]) => service.command?.includes(name)).length
    expect(replicas('launch-router')).toBeGreaterThanOrEqual(1)
    expect(replicas('swap-rail')).toBe(2)
    expect(replicas('dating-venue')).toBe(2)
    expect(new Set(appServices.map(([, service]) => service.image)).size).toBe(1)
    expect(compose.services.postgres).toBeDefined()
  })

  it('gives each service, from a complete .env, what its production start-up demands', async () => {
    const env = await samples()
    for (const [composeName, service] of appServices) {
      const name = service.command!.find((word) => runnable.includes(word))!
      const resolved = environmentOf(service, env)
      expect(resolved.missing, composeName).toEqual([])
      expect(resolved.env.NODE_ENV, composeName).toBe('production')
      expect(productionProblems(name, resolved.env), composeName).toEqual([])
      // The signing keys as the services load them at start-up (one-line PEMs, as documented).
      for (const [key, value] of Object.entries(resolved.env))
        if (key.endsWith('SIGNING_KEY'))
          expect((await loadEs256Key(value, key)).jwks.keys, composeName).toHaveLength(1)
    }
  })

  it('refuses to start without any setting a service requires in production (VAR:? in compose)', async () => {
    const env = await samples()
    for (const [composeName, service] of appServices) {
      const name = service.command!.find((word) => runnable.includes(word))!
      const complete = environmentOf(service, env).env
      for (const key of Object.keys(complete)) {
        const { [key]: _dropped, ...without } = complete
        if (productionProblems(name, without).length === 0) continue
        // The service cannot start without it: Compose must not start without it either.
        const value = service.environment![key]!
        expect(value, `${composeName} ${key}`).toMatch(/\$\{[A-Z0-9_]+:\?/)
      }
    }
  })

  it('writes no secret into the file: keys, tokens, secrets and passwords come from the environment', () => {
    for (const [composeName, service] of Object.entries(compose.services))
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (!/(KEY|TOKEN|SECRET|PASSWORD)/.test(key)) continue
        expect(String(value), `${composeName} ${key}`).toMatch(/^\$\{[A-Z0-9_]+(:[?-][^}]*)?\}$/)
      }
    for (const [composeName, service] of appServices)
      for (const [key, value] of Object.entries(service.environment ?? {}))
        if (key.endsWith('DATABASE_URL'))
          expect(String(value), `${composeName} ${key}`).toMatch(/:\$\{[A-Z0-9_]+_PASSWORD:\?\}@/)
  })

  it('mounts only files the repository has, and proxies and scrapes only services it defines', () => {
    for (const service of Object.values(compose.services))
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!
        if (source.startsWith('./')) expect(existsSync(new URL(source, root)), volume).toBe(true)
      }
    const caddy = text('ops/caddy/Caddyfile')
    const prometheus = parse(text('ops/prometheus/prometheus.yml')) as {
      scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }>
    }
    const upstreams = [
      ...[...caddy.matchAll(/reverse_proxy ([^{]+)\{/g)].flatMap(([, list]) =>
        list!.trim().split(/\s+/),
      ),
      ...prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((c) => c.targets)),
    ]
    expect(upstreams.length).toBeGreaterThan(0)
    const port = /PORT=(\d+)/.exec(text('Dockerfile'))?.[1]
    for (const upstream of upstreams) {
      const [host, upstreamPort] = upstream.split(':')
      expect(
        appServices.map(([composeName]) => composeName),
        upstream,
      ).toContain(host)
      expect(upstreamPort, upstream).toBe(port)
    }
    // Every replica of the rail and the venue is behind the proxy.
    for (const [composeName] of appServices)
      expect(upstreams, composeName).toContain(`${composeName}:${port}`)
  })

  it('starts the image through an executable script that knows every service', () => {
    const entry = new URL('ops/docker/start-service.sh', root)
    accessSync(entry, constants.X_OK)
    expect(text('Dockerfile')).toContain('ENTRYPOINT ["/app/ops/docker/start-service.sh"]')
    const script = text('ops/docker/start-service.sh')
    for (const name of runnable) expect(script, name).toContain(name)
  })
})
