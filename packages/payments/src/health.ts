import { z } from 'zod'
import { facilitatorEndpoint, facilitatorHeaders } from './facilitator-client.ts'
import type { PaymentsDeps } from './payments-deps.ts'

/** The `payments` part of a service's `/health`, for its OpenAPI document. */
export const PaymentsHealthSchema = z.object({
  /** `ok` when every dependency answered; `degraded` otherwise (paid routes may refuse or defer). */
  status: z.enum(['ok', 'degraded']),
  facilitator: z.enum(['ok', 'unavailable', 'not configured']),
  chains: z.record(
    z.string(),
    z.object({ ok: z.boolean(), block: z.string().optional(), error: z.string().optional() }),
  ),
  /** Ledger rows not resolved yet: in flight, outcome unknown, or settled and not yet delivered. */
  unresolvedPayments: z.number().int(),
})

export type PaymentsHealth = z.infer<typeof PaymentsHealthSchema>

/**
 * The payment dependencies for a service's /health: the facilitator
 * (`GET /supported`), each configured chain RPC (latest block) and the
 * ledger's unresolved rows. A failing dependency degrades, it never takes
 * the service down: paid requests then defer (503) rather than lose money.
 */
export const paymentsHealth = async (
  deps: PaymentsDeps,
  { timeoutMs = 2_000 } = {},
): Promise<PaymentsHealth> => {
  const facilitator = deps.x402
    ? await askSupported(deps.x402.facilitator, timeoutMs)
    : ('not configured' as const)
  const [chains, unresolvedPayments] = await Promise.all([
    deps.chain.probe(),
    deps.ledger.countUnresolved(),
  ])
  const healthy = facilitator !== 'unavailable' && Object.values(chains).every((chain) => chain.ok)
  return {
    status: healthy ? 'ok' : 'degraded',
    facilitator,
    chains,
    unresolvedPayments,
  }
}

const askSupported = async (
  settings: NonNullable<PaymentsDeps['x402']>['facilitator'],
  timeoutMs: number,
) => {
  const url = facilitatorEndpoint(settings.url, 'supported')
  try {
    const response = await fetch(url, {
      headers: await facilitatorHeaders(settings, { method: 'GET', url }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    await response.body?.cancel()
    return response.ok ? ('ok' as const) : ('unavailable' as const)
  } catch {
    return 'unavailable' as const
  }
}
