// The facilitator client's own cost: the same `/verify` of one signed
// authorization (verifying moves nothing, so it can be asked again and again)
// through the payments library's client, beside the same call made with
// `fetch` as the client made it before (the baseline), batch by batch in
// turns. The facilitator runs in a process of its own, so the CPU this
// process spends is the client's: what every paid request pays twice
// (`/verify`, `/settle`) on the service's event loop.
import { benchConfig } from '@agents/bench-config'
import { startDevnet } from '@agents/devnet'
import { facilitatorVerify } from '@agents/payments'
import { devnetBaseRail, signAuthorization } from '@agents/payments/testing'
import { median, ms, railRequirement } from './direct-settlement.ts'
import { startFacilitatorProcess } from './facilitator-process.ts'

const batches = benchConfig.payments.batches
const perBatch = 50

/** The client's call as it was written with `fetch` (the baseline). */
const verifyWithFetch = async (url: string, body: unknown) => {
  const response = await fetch(new URL('/verify', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  return JSON.parse(await response.text()) as { isValid?: boolean }
}

const devnet = await startDevnet({ tempo: false })
const facilitatorProcess = await startFacilitatorProcess(devnet.base.rpcUrl)
try {
  const requirement = railRequirement(devnetBaseRail(devnet))
  const payload = await signAuthorization(devnet.accounts.payer, requirement)
  const body = {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirement, payload },
    paymentRequirements: requirement,
  }
  const facilitator = { url: facilitatorProcess.url }
  const paths = {
    'fetch (baseline)': async () => (await verifyWithFetch(facilitator.url, body)).isValid,
    'payments client (undici request)': async () => {
      const verified = await facilitatorVerify(facilitator, body)
      return verified.ok && verified.value.isValid
    },
  }
  const cpu = new Map<string, number[]>(Object.keys(paths).map((name) => [name, []]))
  const wall = new Map<string, number[]>(Object.keys(paths).map((name) => [name, []]))
  for (let batch = 0; batch < batches + 2; batch++) {
    const order = batch % 2 === 0 ? Object.entries(paths) : Object.entries(paths).reverse()
    for (const [name, call] of order) {
      const startedCpu = process.cpuUsage()
      const started = performance.now()
      for (let index = 0; index < perBatch; index++) {
        if ((await call()) !== true) throw new Error(`${name}: the facilitator did not verify`)
      }
      const used = process.cpuUsage(startedCpu)
      // The first two batches warm both paths up.
      if (batch < 2) continue
      cpu.get(name)!.push((used.user + used.system) / 1000 / perBatch)
      wall.get(name)!.push((performance.now() - started) / perBatch)
    }
  }
  console.log(
    `# facilitator client: ${batches} batches of ${perBatch} /verify calls per path, the facilitator in its own process\n`,
  )
  const [baseline, client] = Object.keys(paths) as [string, string]
  for (const name of [baseline, client]) {
    console.log(
      `${name}: client CPU ${ms(median(cpu.get(name)!))} a call (median of batches), wall ${ms(median(wall.get(name)!))} a call`,
    )
  }
  console.log(
    `\nratio to fetch: CPU ${(median(cpu.get(client)!) / median(cpu.get(baseline)!)).toFixed(2)}x, wall ${(median(wall.get(client)!) / median(wall.get(baseline)!)).toFixed(2)}x`,
  )
} finally {
  facilitatorProcess.stop()
  await devnet.stop()
}
