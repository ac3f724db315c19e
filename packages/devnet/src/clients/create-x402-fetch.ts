import { toClientEvmSigner } from '@x402/evm'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment, x402Client } from '@x402/fetch'
import type { PublicClient } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'

export type CreateX402FetchParameters = {
  account: PrivateKeyAccount
  network?: `${string}:${string}`
  /**
   * The client's per-payment cap (x402's spend controls; the SDK's default is
   * "$1"). The devnet's buyers pay the services' real prices, up to 50 USDC.
   */
  maxAmountPerPayment?: `$${number}` | false
}

/**
 * A fetch that answers x402 402s by signing an `exact` EIP-3009 authorization for `network`
 * (v2 `PAYMENT-SIGNATURE`; @x402/evm also registers the matching v1 name, e.g. `base`).
 *
 * @example
 * const pay = createX402Fetch(publicClient, { account: payer })
 * const response = await pay(`${server.url}/paid`)
 */
export const createX402Fetch = (
  publicClient: PublicClient,
  { account, network = 'eip155:8453', maxAmountPerPayment = '$50' }: CreateX402FetchParameters,
): typeof fetch => {
  const client = new x402Client().setSpendControls({ maxAmountPerPayment })
  registerExactEvmScheme(client, {
    signer: toClientEvmSigner(account, publicClient),
    networks: [network],
  })
  return wrapFetchWithPayment(fetch, client) as typeof fetch
}
