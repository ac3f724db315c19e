import {
  type FacilitatorSettings,
  facilitatorEndpoint,
  facilitatorHeaders,
} from '../facilitator-client.ts'
import type { PaymentsLogger } from '../payments-deps.ts'

const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/

/** What the facilitator's `GET /supported` said about a Solana network's fee payer. */
export type FeePayerAnswer =
  | { ok: true; feePayer: string }
  /** The facilitator answered, and offers no `exact` kind with a fee payer for this network. */
  | { ok: false; reachable: true; detail: string }
  /** The facilitator could not be asked (refused, timed out, not JSON, not 2xx). */
  | { ok: false; reachable: false; detail: string }

/**
 * Reads the fee payer a facilitator publishes for `network` in its
 * `GET /supported` kinds (`{ kinds: [{ x402Version, scheme, network, extra: { feePayer } }] }`).
 * An x402 v2 kind is preferred; a v1 kind for the same CAIP-2 network is accepted.
 */
export const readFeePayer = async (
  settings: FacilitatorSettings,
  network: string,
): Promise<FeePayerAnswer> => {
  let body: unknown
  try {
    const url = facilitatorEndpoint(settings.url, 'supported')
    const response = await fetch(url, {
      headers: await facilitatorHeaders(settings, { method: 'GET', url }),
      signal: AbortSignal.timeout(Math.min(settings.timeoutMs ?? 10_000, 5_000)),
    })
    if (!response.ok)
      return { ok: false, reachable: false, detail: `/supported answered ${response.status}` }
    body = await response.json()
  } catch (error) {
    const code = ((error as Error).cause as { code?: string } | undefined)?.code
    return {
      ok: false,
      reachable: false,
      detail: `/supported unreachable: ${code ?? (error as Error).name}`,
    }
  }
  const kinds = (body as { kinds?: unknown } | null)?.kinds
  if (!Array.isArray(kinds))
    return { ok: false, reachable: false, detail: '/supported answered no kinds' }
  const candidates = kinds
    .filter(
      (kind): kind is { x402Version?: number; extra?: { feePayer?: unknown } } =>
        typeof kind === 'object' &&
        kind !== null &&
        (kind as { scheme?: unknown }).scheme === 'exact' &&
        (kind as { network?: unknown }).network === network,
    )
    .sort((left, right) => (right.x402Version ?? 0) - (left.x402Version ?? 0))
  const feePayer = candidates
    .map((kind) => kind.extra?.feePayer)
    .find((value): value is string => typeof value === 'string' && SOLANA_ADDRESS.test(value))
  if (feePayer) return { ok: true, feePayer }
  return {
    ok: false,
    reachable: true,
    detail:
      candidates.length === 0
        ? `the facilitator supports no exact payments on ${network}`
        : `the facilitator's exact kind on ${network} names no extra.feePayer`,
  }
}

export type FeePayerSource = {
  /** The fee payer to advertise now, or undefined: then Solana is not offered. */
  current: () => string | undefined
  /** Asks the facilitator in the background when the answer is due (never blocks a request). */
  refreshIfDue: () => void
  /** Asks the facilitator now (one call at a time); resolves with the fee payer then known. */
  refresh: () => Promise<string | undefined>
}

/**
 * Keeps the Solana fee payer the facilitator publishes. Asked once at
 * start-up; then, from the challenges that read it:
 * - known: asked again every `refreshMs` (10 min) in the background; an
 *   unreachable facilitator keeps the last known fee payer (a facilitator
 *   that cannot be reached cannot settle either way, and the rail comes back
 *   with it), a facilitator that answers without a Solana fee payer drops it;
 * - unknown: asked again at most every `retryMs` (30 s); Solana is not
 *   offered until an answer names a fee payer.
 */
export const createFeePayerSource = ({
  facilitator,
  network,
  logger,
  refreshMs = 600_000,
  retryMs = 30_000,
  now = Date.now,
}: {
  facilitator: FacilitatorSettings
  network: string
  logger?: PaymentsLogger | undefined
  refreshMs?: number
  retryMs?: number
  now?: () => number
}): FeePayerSource => {
  let feePayer: string | undefined
  let askedAt = Number.NEGATIVE_INFINITY
  let inFlight: Promise<string | undefined> | undefined
  let warned = false

  const refresh = () => {
    if (inFlight) return inFlight
    askedAt = now()
    inFlight = readFeePayer(facilitator, network)
      .then((answer) => {
        if (answer.ok) {
          if (answer.feePayer !== feePayer)
            logger?.info(
              { network, feePayer: answer.feePayer },
              'x402 Solana rail offered with the facilitator fee payer',
            )
          feePayer = answer.feePayer
          warned = false
        } else if (answer.reachable || feePayer === undefined) {
          if (feePayer !== undefined || !warned)
            logger?.warn(
              { network, detail: answer.detail },
              'x402 Solana rail not offered: no fee payer from the facilitator',
            )
          warned = true
          if (answer.reachable) feePayer = undefined
        } else {
          logger?.warn(
            { network, feePayer, detail: answer.detail },
            'facilitator not reachable: keeping the last known Solana fee payer',
          )
        }
        return feePayer
      })
      .finally(() => {
        inFlight = undefined
      })
    return inFlight
  }

  return {
    current: () => feePayer,
    refresh,
    refreshIfDue: () => {
      const due = feePayer === undefined ? retryMs : refreshMs
      if (!inFlight && now() - askedAt >= due) void refresh()
    },
  }
}
