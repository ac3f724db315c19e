import { buildRequirementsV2, type Price, resourceUrl } from '@agents/payments'
import type { SwapDeps } from '../deps.ts'
import { sellerSplit } from '../offers/offers.ts'

// The split is a CREATE2 address (keccak, ~0.15 ms): computed once per
// deps, not on every probe and discovery read (both are free to call).
const samplePrices = new WeakMap<SwapDeps, Price>()

/** The sample price of the discovery probe: a gross amount to the sample seller's split. */
export const samplePrice = (deps: SwapDeps): Price => {
  let price = samplePrices.get(deps)
  if (!price) {
    price = { amount: deps.sample.amount, payTo: sellerSplit(deps.sample.seller, deps.fee) }
    samplePrices.set(deps, price)
  }
  return price
}

/** Only the Base rail: the probe and the discovery document advertise one accept. */
export const sampleAccepts = (deps: SwapDeps) =>
  buildRequirementsV2(
    (deps.payments.x402?.rails ?? []).filter((rail) => rail.network === 'eip155:8453'),
    samplePrice(deps),
  )

/** `GET /.well-known/x402`: what a client can pay here, before it reads a live 402. */
export const discoveryDocument = (deps: SwapDeps) => {
  const base = deps.baseUrl()
  const accepts = sampleAccepts(deps)
  return {
    x402Version: 2,
    resources: [
      {
        resource: resourceUrl(base, '/v1/pay'),
        type: 'http',
        method: 'POST',
        description:
          'Discovery probe: a bare call returns this sample 402 and changes nothing. It takes no payment.',
        accepts,
      },
      {
        resource: `${resourceUrl(base, '/v1/matches/')}{id}/pay`,
        type: 'http',
        method: 'POST',
        description:
          "Pay a match: one gross USDC accept on Base whose payee is that match's split (shown: the sample). Also MPP push on Tempo. The live 402 is authoritative: read it before signing.",
        accepts,
      },
    ],
  }
}
