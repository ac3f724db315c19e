import { DEVNET_PRIVATE_KEYS } from './devnet-accounts.ts'
import { startDevnet } from './start-devnet.ts'

// `npm run devnet -w @agents/devnet`: a local payment network for people, until Ctrl-C.
const devnet = await startDevnet()
const { accounts } = devnet

console.log(`agents devnet: local chains and an x402 facilitator (throwaway keys, DEVNET ONLY)

Base (anvil)      ${devnet.base.rpcUrl}   chain id ${devnet.base.chainId}
  USDC            ${devnet.base.usdc}   (FiatTokenV2_2, EIP-712 "USD Coin" v2, 6 decimals)
  x402 network    v2 eip155:${devnet.base.chainId}, v1 base
x402 facilitator  ${devnet.facilitator.url}   (POST /verify, POST /settle, GET /supported)
  settles from    ${devnet.facilitator.address}`)
if (devnet.tempo)
  console.log(`Tempo (anvil)     ${devnet.tempo.rpcUrl}   chain id ${devnet.tempo.chainId}
  MPP currency    ${devnet.tempo.currency}   (pathUSD, TIP-20, 6 decimals)`)
console.log(`
Accounts
  payer           ${accounts.payer.address}
  payer key       ${DEVNET_PRIVATE_KEYS.payer}   <- devnet only, publicly known anvil key
  payer2          ${accounts.payer2.address}
  payer2 key      ${DEVNET_PRIVATE_KEYS.payer2}   <- devnet only
  payee           ${accounts.payee}
  payee2          ${accounts.payee2}
  feeRecipient    ${accounts.feeRecipient}

Ctrl-C stops everything.`)

const shutdown = async () => {
  await devnet.stop()
  process.exit(0)
}
process.once('SIGINT', shutdown)
process.once('SIGTERM', shutdown)
