import type { Devnet } from '@agents/devnet'
import { rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { expect } from 'vitest'
import type { LedgerDatabase } from '../ledger/ledger.ts'
import { baseRequirementOf } from './paid-route-harness.ts'
import { countDeliveries } from './test-shop.ts'

/**
 * What the x402 shop's tests (`payments.chain.test.ts`, `payments.faults.test.ts`)
 * send and read: a POST, the requirement a route offers, the payee's balance,
 * and the assertion that a refused payment changed nothing.
 */
export const x402ShopClient = (shop: () => { url: string; devnet: Devnet; db: LedgerDatabase }) => {
  /** POSTs to the shop; `item` names what is bought (without one, the path is the item). */
  const post = (path: string, headers: Record<string, string> = {}, item?: string) =>
    fetch(`${shop().url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(item ? { item } : {}),
    })
  const offered = async (path = '/report') => baseRequirementOf(await post(path))
  const payee = () => shop().devnet.usdcBalance(shop().devnet.accounts.payee)
  const ledgerRows = async () =>
    rowsOf<{ n: number }>(
      await shop().db.execute(sql`SELECT count(*)::int AS n FROM payment_ledger`),
    )[0]!.n

  /** 402 payment not verified with `reason`: nothing delivered, nothing moved, no ledger row left. */
  const expectRefused = async (header: Record<string, string>, reason: string) => {
    const { db } = shop()
    const before = await payee()
    const delivered = await countDeliveries(db)
    const recorded = await ledgerRows()
    const response = await post('/report', header)
    expect(response.status).toBe(402)
    expect(await response.json()).toMatchObject({ error: 'payment not verified', reason })
    expect(response.headers.get('payment-required')).toBeTruthy()
    expect(await payee()).toBe(before)
    expect(await countDeliveries(db)).toBe(delivered)
    // The claim commits while the facilitator verifies; a refusal withdraws it.
    expect(await ledgerRows()).toBe(recorded)
  }

  return { post, offered, payee, expectRefused }
}
