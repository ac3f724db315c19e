import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { inject } from 'vitest'
import type { DevnetAccounts } from '../devnet-accounts.ts'
import { type Devnet, type StartDevnetParameters, startDevnet } from '../start-devnet.ts'
import { connectDevnet } from './connect-devnet.ts'
import type { DevnetDescriptor } from './devnet-descriptor.ts'

export type SharedDevnetParameters = StartDevnetParameters

/**
 * The run's devnet (the chain tier's global setup) with accounts of this call's own: `payer` and
 * `payer2` are new keys holding 10,000 ETH and 1,000,000 USDC on Base and (with `tempo`, the
 * default) 1,000,000 pathUSD on Tempo; `payee`, `payee2` and `feeRecipient` are new empty
 * addresses. Test files running in parallel therefore never see each other's balances or nonces.
 * `stop()` leaves the shared chains running; the facilitator's fault switches and settlement
 * count throw (use `startDevnet()` in a `.faults.test.ts` file for those). Outside the chain tier
 * (nothing provided) it starts a private devnet, as `startDevnet` does, and `stop()` stops it.
 *
 * @example
 * const devnet = await sharedDevnet()
 * const response = await devnet.x402Fetch()(`${server.url}/paid`)
 */
export const sharedDevnet = async ({
  tempo = true,
}: SharedDevnetParameters = {}): Promise<Devnet> => {
  const descriptor = inject('devnet')
  if (!descriptor) return startDevnet({ tempo })
  const accounts = freshAccounts()
  const payers = [accounts.payer.address, accounts.payer2.address]
  await requestFunding(descriptor, { base: payers, tempo: tempo ? payers : [] })
  return connectDevnet(descriptor, { accounts, tempo })
}

const freshAccounts = (): DevnetAccounts => ({
  payer: privateKeyToAccount(generatePrivateKey()),
  payer2: privateKeyToAccount(generatePrivateKey()),
  payee: freshAddress(),
  payee2: freshAddress(),
  feeRecipient: freshAddress(),
})

const freshAddress = (): Address => privateKeyToAddress(generatePrivateKey())

const requestFunding = async (
  descriptor: DevnetDescriptor,
  body: { base: Address[]; tempo: Address[] },
) => {
  const response = await fetch(descriptor.fundingUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!response.ok)
    throw new Error(
      `the shared devnet could not fund this file's accounts: ${await response.text()}`,
    )
}
