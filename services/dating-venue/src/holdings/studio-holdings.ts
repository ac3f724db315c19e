import type { Address } from 'viem'
import type { VenueConfig } from '../config.ts'
import type { VenueDatabase } from '../db/open.ts'
import { createHoldingsReader, fetchUsdPrice } from './holdings.ts'
import { createPriceOracle } from './price-oracle.ts'
import { studioPriceStore } from './studio-price-store.ts'

/**
 * The holdings reader the configuration asks for: the studio token's
 * balance at the oracle's price when the token, its RPC and its price source
 * are all configured; otherwise every holding is worth nothing (3 free
 * messages a day).
 */
export const studioHoldings = (config: VenueConfig, database: VenueDatabase) => {
  const {
    VENUE_STUDIO_TOKEN: token,
    VENUE_STUDIO_RPC_URL: rpcUrl,
    VENUE_STUDIO_PRICE_URL: priceUrl,
  } = config
  if (!token || !rpcUrl || !priceUrl) return async () => 0n
  const oracle = createPriceOracle({
    source: fetchUsdPrice(priceUrl),
    maxRiseBpsPerHour: BigInt(config.VENUE_STUDIO_PRICE_MAX_RISE_BPS),
    staleAfterMs: config.VENUE_STUDIO_PRICE_STALE_HOURS * 3_600_000,
    store: studioPriceStore(database),
  })
  return createHoldingsReader({ token: token as Address, rpcUrl, oracle })
}
