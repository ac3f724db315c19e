import type { PaymentsDeps } from './sell-once.ts'

export type PaymentsHealth = {
  /** `ok` when every dependency answered; `degraded` otherwise (paid routes may refuse or defer). */
  status: 'ok' | 'degraded'
  facilitator: 'ok' | 'unavailable' | 'not configured'
  chains: Record<string, { ok: boolean; block?: string; error?: string }>
  /** Ledger rows not resolved yet: in flight, outcome unknown, or settled and not yet delivered. */
  unresolvedPayments: number
}

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
    ? await fetch(new URL('supported', withSlash(deps.x402.facilitator.url)), {
        headers: deps.x402.facilitator.headers ?? {},
        signal: AbortSignal.timeout(timeoutMs),
      }).then(
        (response) => (response.ok ? ('ok' as const) : ('unavailable' as const)),
        () => 'unavailable' as const,
      )
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

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`)
