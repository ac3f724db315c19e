import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { benchConfig } from '@agents/bench-config'
import { type Devnet, devnetEnv } from '@agents/devnet'
import { createTestDatabase } from '@agents/service-kit/db'
import { runAgentWindow, type Sample } from './agent-window.ts'
import { cpuSeconds, machineCpuSeconds, postgresCpuSeconds } from './cpu-seconds.ts'
import { type FloodOutcome, startFlood } from './flood.ts'
import type { ModelStandIn } from './model-stand-in.ts'
import { readMetrics } from './read-metrics.ts'
import { startService } from './start-service.ts'
import type { Target, TargetContext } from './target.ts'

/** The agent's public address and the abuser's (X-Forwarded-For; documentation ranges). */
export const AGENT_ADDRESS = '203.0.113.7'
export const ABUSER_ADDRESS = '198.51.100.66'
const METRICS_TOKEN = 'bench-abuse-metrics-token-0123456789'

export type MeasureServiceParameters = {
  devnet: Devnet
  standIn: ModelStandIn
  /** A PostgreSQL server to make a fresh database on; undefined: PGlite. */
  postgresUrl: string | undefined
  seconds: number
  warmUpSeconds: number
  connections: number
}

/** CPU seconds of the parts that matter, read at one instant. */
const cpuNow = (servicePid: number, postgres: boolean) => ({
  service: cpuSeconds(servicePid),
  bench: cpuSeconds('self'),
  postgres: postgres ? postgresCpuSeconds() : 0,
  machine: machineCpuSeconds(),
  at: performance.now(),
})
type CpuNow = ReturnType<typeof cpuNow>
const cpuSince = (before: CpuNow, after: CpuNow) => ({
  wallSeconds: (after.at - before.at) / 1000,
  service: after.service - before.service,
  bench: after.bench - before.bench,
  postgres: after.postgres - before.postgres,
  machine: after.machine - before.machine,
})
export type WindowCpu = ReturnType<typeof cpuSince>

export type ServiceRun = {
  service: Target['service']
  /** `none` for a stateless service. */
  backend: 'PGlite' | 'PostgreSQL' | 'none'
  quiet: { samples: Sample[]; loops: number; cpu: WindowCpu; outbound: Record<string, number> }
  flood: {
    samples: Sample[]
    loops: number
    cpu: WindowCpu
    outbound: Record<string, number>
    abuser: FloodOutcome
  }
  after: Record<string, number | string>
  metrics: string[]
}

const outboundSince = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([key, value]) => [key, value - (before[key] ?? 0)]))

/**
 * One service on one backend: started in its own process on its defaults
 * (limits untouched), the agent prepared and warmed up, then the quiet
 * window (the agent alone) and the flood window (the agent while the
 * abusive client floods), each `seconds` long, with the service's CPU
 * seconds in each.
 */
export const measureService = async (
  target: Target,
  { devnet, standIn, postgresUrl, seconds, warmUpSeconds, connections }: MeasureServiceParameters,
): Promise<ServiceRun> => {
  const database =
    postgresUrl && target.stateful ? await createTestDatabase(postgresUrl) : undefined
  const dataDir = await mkdtemp(join(tmpdir(), `bench-abuse-${target.service}-`))
  const tag = randomBytes(3).toString('hex')
  const context: TargetContext = {
    devnet,
    standIn,
    databaseUrl: database?.url,
    dataDir,
    tag,
    model: `bench-model-${tag}`,
  }
  const service = await startService(target.service, {
    ...devnetEnv(devnet),
    NODE_ENV: undefined,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: benchConfig.abuse.logLevel,
    // Both clients come from 127.0.0.1: each sends its own public address.
    TRUST_FORWARDED_FOR: '1',
    GEO_TRUST_FORWARDED_FOR: '1',
    METRICS_TOKEN,
    ...target.env(context),
  })
  try {
    const agent = await target.prepare(context, service.url, AGENT_ADDRESS)
    const window = (firstLoop: number, windowSeconds: number) =>
      runAgentWindow({
        baseUrl: service.url,
        forwardedFor: AGENT_ADDRESS,
        loop: agent.loop,
        seconds: windowSeconds,
        intervalMs: target.intervalMs,
        firstLoop,
      })
    const warmUp = await window(0, warmUpSeconds)

    const postgres = database !== undefined
    let before = cpuNow(service.pid, postgres)
    let outbound = standIn.calls()
    const quiet = await window(warmUp.nextLoop, seconds)
    const quietCpu = cpuSince(before, cpuNow(service.pid, postgres))
    const quietOutbound = outboundSince(outbound, standIn.calls())

    const flood = await startFlood({
      url: service.url,
      kind: target.flood,
      seconds,
      connections,
      forwardedFor: ABUSER_ADDRESS,
      tag,
      model: context.model,
    })
    before = cpuNow(service.pid, postgres)
    outbound = standIn.calls()
    const flooded = await window(quiet.nextLoop, seconds)
    const abuser = await flood.done
    const floodCpu = cpuSince(before, cpuNow(service.pid, postgres))
    const floodOutbound = outboundSince(outbound, standIn.calls())
    return {
      service: target.service,
      backend: database ? 'PostgreSQL' : target.stateful ? 'PGlite' : 'none',
      quiet: { ...quiet, cpu: quietCpu, outbound: quietOutbound },
      flood: { ...flooded, cpu: floodCpu, outbound: floodOutbound, abuser },
      after: (await agent.after?.()) ?? {},
      metrics: await readMetrics(service.url, METRICS_TOKEN),
    }
  } finally {
    await service.stop()
    await database?.drop()
    await rm(dataDir, { recursive: true, force: true })
  }
}
