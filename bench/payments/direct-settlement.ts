import {
  facilitatorSettle,
  facilitatorVerify,
  type RequirementV2,
  type X402Rail,
} from '@agents/payments'
import { signAuthorization } from '@agents/payments/testing'
import { request } from 'undici'
import type { PrivateKeyAccount } from 'viem/accounts'

/** The `p`th percentile of `values` (nearest rank). */
export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}
/** The `exact` requirement the payment benches pay on `rail`: 0.001 USDC unless told. */
export const railRequirement = (rail: X402Rail, amount = '1000'): RequirementV2 => ({
  scheme: 'exact',
  maxTimeoutSeconds: 300,
  amount,
  ...rail,
  extra: rail.extra ?? {},
})

export const median = (values: number[]) => percentile(values, 50)
export const ms = (value: number) => `${value.toFixed(2)} ms`

/**
 * The baseline of the paid-route benches: the facilitator's own verify +
 * settle of one fresh authorization for `requirement`, timed (the signing
 * is not).
 */
export const measureDirectSettlement = async (
  facilitator: { url: string },
  payer: PrivateKeyAccount,
  requirement: RequirementV2,
) => {
  const payload = await signAuthorization(payer, requirement)
  const body = {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirement, payload },
    paymentRequirements: requirement,
  }
  const started = performance.now()
  const verified = await facilitatorVerify(facilitator, body)
  const settled = await facilitatorSettle(facilitator, body)
  const elapsed = performance.now() - started
  if (!verified.ok || !settled.ok || !settled.value.success)
    throw new Error(`direct settlement failed: ${JSON.stringify({ verified, settled })}`)
  return elapsed
}

/** How a bench reaches a paid route: `fetch`, or undici's `request` (the facilitator client's). */
export type BenchClient = 'fetch' | 'undici'

/** POSTs JSON and reads the answer as JSON, through `client`. */
export const postJson = async (
  client: BenchClient,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; answer: unknown }> => {
  if (client === 'fetch') {
    const response = await fetch(url, { method: 'POST', headers, body })
    return { status: response.status, answer: await response.json() }
  }
  const response = await request(url, { method: 'POST', headers, body })
  return { status: response.statusCode, answer: await response.body.json() }
}
