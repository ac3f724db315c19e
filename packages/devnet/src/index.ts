export {
  type SpawnAnvilParameters,
  type SpawnAnvilReturnType,
  spawnAnvil,
} from './anvil/spawn-anvil.ts'
export { BASE_CHAIN_ID } from './chains/start-base-chain.ts'
export { TEMPO_CHAIN_ID, TEMPO_PATH_USD } from './chains/start-tempo-chain.ts'
export type { V1Requirements } from './clients/sign-v1-payment.ts'
export { DEVNET_PRIVATE_KEYS, type DevnetAccounts, getDevnetAccounts } from './devnet-accounts.ts'
export { devnetEnv } from './devnet-env.ts'
export { type CdpApiKey, createCdpApiKey } from './facilitator/cdp-api-key.ts'
export type { FacilitatorBehavior, SettleFault } from './facilitator/facilitator-behavior.ts'
export {
  type CdpFacilitator,
  type CdpFacilitatorCall,
  type CdpJwtCheck,
  type CdpJwtVerdict,
  type StartCdpFacilitatorParameters,
  startCdpFacilitator,
  verifyCdpJwt,
} from './facilitator/start-cdp-facilitator.ts'
export { proxiedPostgresUrl } from './faults/proxied-postgres-url.ts'
export {
  type StartTcpFaultProxyParameters,
  type StartTcpFaultProxyReturnType,
  startTcpFaultProxy,
  type TcpFaultProxy,
} from './faults/tcp-fault-proxy.ts'
export { type ServeLocalReturnType, serveLocal } from './serve-local.ts'
export {
  DEVNET_PAYER_USDC,
  type Devnet,
  type StartDevnetParameters,
  startDevnet,
} from './start-devnet.ts'
export {
  type StartStudioTokenParameters,
  type StudioToken,
  startStudioToken,
} from './studio/start-studio-token.ts'
export { BASE_USDC_ADDRESS } from './usdc/install-usdc.ts'
