import { Mppx, tempo } from 'mppx/client'
import { type Chain, createClient, http } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'

export type CreateMppFetchParameters = {
  account: PrivateKeyAccount
  chain: Chain
  rpcUrl: string
  mode?: 'push' | 'pull'
}

/**
 * A fetch that pays MPP `tempo` charges in push mode: it broadcasts the TIP-20 transfer on the
 * devnet itself and sends the hash. `mode: 'pull'` signs the transfer and lets the server
 * broadcast it (a route that takes only pull: the chat top-up).
 *
 * @example
 * const pay = createMppFetch({ account: payer, chain, rpcUrl })
 * const response = await pay(`${server.url}/paid`)
 */
export const createMppFetch = ({
  account,
  chain,
  rpcUrl,
  mode = 'push',
}: CreateMppFetchParameters): typeof fetch => {
  const client = createClient({ chain, transport: http(rpcUrl), pollingInterval: 50 })
  const mppx = Mppx.create({
    // Leave globalThis.fetch alone: tests mix paying and non-paying requests in one process.
    polyfill: false,
    methods: [tempo.charge({ account, mode, getClient: () => client })],
  })
  return mppx.fetch as typeof fetch
}
