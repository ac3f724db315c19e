// Payments benchmark: 200 paid requests in a row on the devnet, beside the
// facilitator's own verify + settle measured directly in the same run. Our
// overhead is the difference, as a ratio of the facilitator's time.
import { serveLocal, startDevnet } from '@agents/devnet'
import {
  createMemoryReceiptStore,
  facilitatorSettle,
  facilitatorVerify,
  paid,
  type RequirementV2,
} from '@agents/payments'
import { devnetBaseRail, paymentSignatureHeader, signAuthorization } from '@agents/payments/testing'
import { Hono } from 'hono'

const rounds = Number(process.env.BENCH_ROUNDS ?? 200)
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

const devnet = await startDevnet({ tempo: false })
const facilitator = { url: devnet.facilitator.url }
const rail = devnetBaseRail(devnet)
const app = new Hono()
app.post(
  '/paid',
  paid(
    { x402: { rails: [rail], facilitator }, store: createMemoryReceiptStore() },
    { price: { amount: 1_000n } },
  ),
  (c) => c.json({ ok: true }),
)
const server = await serveLocal(app.fetch)
const requirement: RequirementV2 = {
  scheme: 'exact',
  maxTimeoutSeconds: 300,
  amount: '1000',
  ...rail,
  extra: rail.extra ?? {},
}

try {
  // Warm-up: both paths once.
  await fetch(`${server.url}/paid`, {
    method: 'POST',
    headers: {
      'payment-signature': await paymentSignatureHeader(devnet.accounts.payer, requirement),
    },
  })

  // Interleaved, so both see the same chain state and the same machine load.
  const direct: number[] = []
  const ours: number[] = []
  for (let round = 0; round < rounds; round++) {
    const payload = await signAuthorization(devnet.accounts.payer, requirement)
    const body = {
      x402Version: 2,
      paymentPayload: { x402Version: 2, accepted: requirement, payload },
      paymentRequirements: requirement,
    }
    let started = performance.now()
    const verified = await facilitatorVerify(facilitator, body)
    const settled = await facilitatorSettle(facilitator, body)
    direct.push(performance.now() - started)
    if (!verified.ok || !settled.ok || !settled.value.success)
      throw new Error('direct settlement failed')

    const header = await paymentSignatureHeader(devnet.accounts.payer, requirement)
    started = performance.now()
    const response = await fetch(`${server.url}/paid`, {
      method: 'POST',
      headers: { 'payment-signature': header },
    })
    await response.text()
    ours.push(performance.now() - started)
    if (response.status !== 200) throw new Error(`paid request answered ${response.status}`)
  }

  const show = (label: string, values: number[]) =>
    console.log(
      `${label.padEnd(44)} median ${percentile(values, 50).toFixed(1)} ms   p99 ${percentile(values, 99).toFixed(1)} ms`,
    )
  console.log(`# payments benchmark (${rounds} paid requests in a row, devnet)\n`)
  show('facilitator verify + settle, direct (baseline)', direct)
  show('whole paid request through @agents/payments', ours)
  const overhead = (percentile(ours, 50) - percentile(direct, 50)) / percentile(direct, 50)
  console.log(
    `our overhead at the median: ${(overhead * 100).toFixed(1)} % of the facilitator's time   (goal at most 10 %)`,
  )
} finally {
  await server.close()
  await devnet.stop()
}
