import { type Devnet, startDevnet, startTcpFaultProxy, type TcpFaultProxy } from '@agents/devnet'
import { hostPortOf, throughProxy } from './paid-route-harness.ts'

export type FaultDevnet = {
  devnet: Devnet
  /** In front of the Base and Tempo RPCs, as the service under test reaches them. */
  baseRpc: TcpFaultProxy
  tempoRpc: TcpFaultProxy
  /**
   * Payment settings for a service under fault tests: a 1 s facilitator
   * timeout, a 2 s lease, the chain reads through the proxies.
   */
  env: () => Record<string, string>
  stop: () => Promise<void>
}

/** The devnet (Base and Tempo) with fault proxies in front of both chains' RPCs. */
export const startFaultDevnet = async (): Promise<FaultDevnet> => {
  const devnet = await startDevnet()
  const baseRpc = await startTcpFaultProxy(hostPortOf(devnet.base.rpcUrl))
  const tempoRpc = await startTcpFaultProxy(hostPortOf(devnet.tempo!.rpcUrl))
  return {
    devnet,
    baseRpc,
    tempoRpc,
    env: () => ({
      PAYMENTS_FACILITATOR_TIMEOUT_MS: '1000',
      PAYMENTS_LEASE_SECONDS: '2',
      PAYMENTS_BASE_RPC_URL: throughProxy(baseRpc, devnet.base.rpcUrl),
      PAYMENTS_TEMPO_RPC_URL: throughProxy(tempoRpc, devnet.tempo!.rpcUrl),
    }),
    stop: async () => {
      await baseRpc.close()
      await tempoRpc.close()
      await devnet.stop()
    },
  }
}
