/**
 * x402 v1 named networks; v2 uses CAIP-2. The venue's legacy body says
 * `eip155:8453` (its spec), while v1 facilitators and older v1 clients speak
 * `base`: we accept either from clients and speak the v1 name to facilitators.
 */
const V1_NAMES: Record<string, string> = {
  'eip155:8453': 'base',
  'eip155:84532': 'base-sepolia',
  'eip155:1': 'ethereum',
  'eip155:137': 'polygon',
}
const CAIP2_BY_NAME = Object.fromEntries(
  Object.entries(V1_NAMES).map(([caip2, name]) => [name, caip2]),
)

export const toV1NetworkName = (network: string) => V1_NAMES[network] ?? network
export const fromV1NetworkName = (network: string) => CAIP2_BY_NAME[network] ?? network
