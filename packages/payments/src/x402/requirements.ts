import { checkedResourceUrl } from '../resource-url.ts'
import type { Price, Resource, X402Rail } from '../types.ts'

const isEvmAddress = (value: string) => /^0x[0-9a-fA-F]{40}$/.test(value)

/** The v2 `accepts` entry shape (x402 `exact` scheme). */
export type RequirementV2 = {
  scheme: 'exact'
  network: string
  amount: string
  asset: string
  payTo: string
  maxTimeoutSeconds: number
  extra: Record<string, unknown>
}

/** The legacy v1 `accepts` entry the venue spec gives. */
export type RequirementV1 = {
  scheme: 'exact'
  network: string
  maxAmountRequired: string
  resource: string
  description: string
  mimeType: string
  payTo: string
  maxTimeoutSeconds: number
  asset: string
  outputSchema: Record<string, unknown>
  extra: Record<string, unknown>
}

/**
 * A rail a standard client can pay: a Solana `exact` accept needs the
 * facilitator's fee payer in `extra.feePayer` (the payer's transaction names
 * it as fee payer), so a Solana rail without one is never offered.
 */
export const payableRail = (rail: X402Rail): boolean =>
  !rail.network.startsWith('solana:') || typeof rail.extra?.feePayer === 'string'

/**
 * One `exact` accept per payable rail for this price. A per-request EVM payee
 * (`price.payTo`, e.g. a match's split) replaces the payee of EVM rails and
 * drops the others: a 0x address cannot be paid on Solana.
 */
export const buildRequirementsV2 = (rails: readonly X402Rail[], price: Price): RequirementV2[] =>
  rails
    .filter(payableRail)
    .filter(
      (rail) => !price.payTo || !isEvmAddress(price.payTo) || rail.network.startsWith('eip155:'),
    )
    .map((rail) => ({
      scheme: 'exact',
      network: rail.network,
      amount: price.amount.toString(),
      asset: rail.asset,
      payTo: price.payTo ?? rail.payTo,
      maxTimeoutSeconds: rail.maxTimeoutSeconds ?? 300,
      extra: rail.extra ?? {},
    }))

/** The legacy v1 accepts: the Base rail only (the spec fixes network eip155:8453). */
export const buildRequirementsV1 = (
  requirements: readonly RequirementV2[],
  resource: Resource,
): RequirementV1[] =>
  requirements
    .filter((requirement) => requirement.network === 'eip155:8453')
    .map((requirement) => ({
      scheme: 'exact',
      network: requirement.network,
      maxAmountRequired: requirement.amount,
      // The spec's legacy body names the path; v2's PAYMENT-REQUIRED the whole URL.
      resource: checkedResourceUrl(resource.url).pathname,
      description: resource.description,
      mimeType: resource.mimeType ?? 'application/json',
      payTo: requirement.payTo,
      maxTimeoutSeconds: requirement.maxTimeoutSeconds,
      asset: requirement.asset,
      outputSchema: resource.outputSchema ?? {},
      extra: requirement.extra,
    }))
