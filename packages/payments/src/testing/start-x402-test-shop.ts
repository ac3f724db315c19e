import { type Devnet, serveLocal } from '@agents/devnet'
import { Hono } from 'hono'
import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { createSettlementReader } from '../chain/settlement-reader.ts'
import { createPaymentLedger, type LedgerDatabase } from '../ledger/ledger.ts'
import type { PaymentsDeps } from '../payments-deps.ts'
import { devnetBaseRail } from './devnet-rail.ts'
import { sellTestItem } from './sell-test-item.ts'
import { switchableChain } from './switchable-chain.ts'
import { openTestShopDatabase } from './test-shop.ts'

/** The report's price: 5.00 USDC. */
export const X402_SHOP_PRICE = 5_000_000n
export const X402_SHOP_SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
export const X402_SHOP_FEE_PAYER = 'Fee1111111111111111111111111111111111111111'

export type X402TestShop = {
  url: string
  db: LedgerDatabase
  /** The per-request payee of `/matches/:id/pay`: a fresh address, empty at start. */
  split: Address
  /** The settlement reader, which a test can cut. */
  chain: ReturnType<typeof switchableChain>
  close: () => Promise<void>
}

/**
 * A shop selling on x402 (the devnet's Base rail and a Solana rail) through its own ledger:
 * `POST /report` (legacy v1 body, {@link X402_SHOP_PRICE}) and `POST /matches/:id/pay` (a price
 * of id * 1000 to `split`, as the swap rail charges a match). For payments.*.test.ts.
 *
 * @example
 * const shop = await startX402TestShop(devnet)
 * await fetch(`${shop.url}/report`, { method: 'POST' }) // 402
 */
export const startX402TestShop = async (devnet: Devnet): Promise<X402TestShop> => {
  const split = privateKeyToAddress(generatePrivateKey())
  const { db, close: closeDb } = await openTestShopDatabase()
  const chain = switchableChain(createSettlementReader({ baseRpcUrl: devnet.base.rpcUrl }))
  const deps: PaymentsDeps = {
    x402: {
      rails: [
        devnetBaseRail(devnet),
        {
          network: X402_SHOP_SOLANA,
          asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
          payTo: 'Hub1111111111111111111111111111111111111111',
          extra: { feePayer: X402_SHOP_FEE_PAYER },
        },
      ],
      facilitator: { url: devnet.facilitator.url, timeoutMs: 1_500 },
    },
    ledger: createPaymentLedger(db),
    chain: chain.reader,
    leaseSeconds: 5,
  }
  const app = new Hono()
  // The shop's 402s name their resource on the address it listens on, as a service's do.
  let baseUrl = ''
  app.post('/report', (c) =>
    sellTestItem(deps, c.req.raw, {
      price: { amount: X402_SHOP_PRICE },
      description: 'compatibility report',
      body: 'legacy-v1',
      baseUrl,
    }),
  )
  app.post('/matches/:id/pay', (c) =>
    sellTestItem(deps, c.req.raw, {
      price: { amount: BigInt(c.req.param('id')) * 1000n, payTo: split },
      description: `match ${c.req.param('id')}`,
      baseUrl,
    }),
  )
  const server = await serveLocal(app.fetch)
  baseUrl = server.url
  return {
    url: server.url,
    db,
    split,
    chain,
    close: async () => {
      await server.close()
      await closeDb()
    },
  }
}
