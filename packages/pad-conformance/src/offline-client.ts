import { createPublicClient, custom } from 'viem'
import { base } from 'viem/chains'

/** A viem transport that refuses every request: an SDK that reaches for the chain fails loudly. */
export const offlineTransport = custom({
  request: async ({ method }: { method: string }) => {
    throw new Error(`RPC call attempted offline: ${method}`)
  },
})

/** A public client on Base whose every RPC call throws. */
export const createOfflineClient = () =>
  createPublicClient({ chain: base, transport: offlineTransport })
