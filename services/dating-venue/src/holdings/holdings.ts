import { type Address, createPublicClient, erc20Abi, http } from 'viem'
import { holdingCents } from './free-messages.ts'
import type { PriceOracle } from './price-oracle.ts'

export type StudioTokenSettings = {
  /** The studio token (ERC-20 on Base). */
  token: Address
  /** A read-only Base RPC. */
  rpcUrl: string
  oracle: PriceOracle
  timeoutMs?: number
}

/**
 * What a wallet's studio token holding is worth, in US cents: its
 * `balanceOf` over the configured RPC (read-only) at the oracle's price.
 * A balance that cannot be read counts as nothing (the free tier, never a
 * higher one): the failure is the safe side.
 */
export const createHoldingsReader = ({
  token,
  rpcUrl,
  oracle,
  timeoutMs = 3_000,
}: StudioTokenSettings) => {
  const client = createPublicClient({
    transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }),
  })
  let decimals: Promise<number> | undefined
  return async (wallet: string): Promise<bigint> => {
    try {
      decimals ??= client
        .readContract({ address: token, abi: erc20Abi, functionName: 'decimals' })
        .catch((error) => {
          decimals = undefined
          throw error
        })
      const [balance, places, price] = await Promise.all([
        client.readContract({
          address: token,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [wallet as Address],
        }),
        decimals,
        oracle.price(),
      ])
      return holdingCents(balance, places, price)
    } catch {
      return 0n
    }
  }
}

/**
 * The studio token's price from a JSON price API (`VENUE_STUDIO_PRICE_URL`),
 * in millionths of a dollar: the first `usd` field, at the top or one level
 * down, so both `{ "usd": 0.025 }` and CoinGecko's simple-price answer
 * `{ "<id>": { "usd": 0.025 } }` work. Anything else throws (the oracle then
 * keeps its stored price).
 */
export const fetchUsdPrice =
  (url: string, { timeoutMs = 3_000, fetchImpl = fetch } = {}) =>
  async (): Promise<bigint> => {
    const response = await fetchImpl(url, { signal: AbortSignal.timeout(timeoutMs) })
    if (!response.ok) throw new Error(`price source answered ${response.status}`)
    const body = (await response.json()) as Record<string, unknown>
    const nested = Object.values(body).find(
      (value): value is { usd: unknown } =>
        typeof value === 'object' && value !== null && 'usd' in value,
    )
    const usd = 'usd' in body ? body.usd : nested?.usd
    const text =
      typeof usd === 'number' ? usd.toFixed(6) : typeof usd === 'string' ? usd : undefined
    const match = text && /^(\d{1,12})(?:\.(\d{1,18}))?$/.exec(text.trim())
    if (!match) throw new Error('price source gave no usd price')
    return BigInt(match[1]!) * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0').slice(0, 6))
  }
