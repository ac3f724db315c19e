import { x402Facilitator } from '@x402/core/facilitator'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator'
import { type Address, type Chain, createWalletClient, type Hex, http, publicActions } from 'viem'
import { createNonceManager, privateKeyToAccount } from 'viem/accounts'
import { jsonRpc } from 'viem/nonce'

export type CreateLocalFacilitatorParameters = {
  rpcUrl: string
  chain: Chain
  privateKey: Hex
}

export type CreateLocalFacilitatorReturnType = {
  facilitator: x402Facilitator
  address: Address
}

/**
 * An x402 facilitator that settles `exact` EVM payments on the devnet chain: v2 for
 * `eip155:<chain id>`, and v1 for the legacy network names @x402/evm registers (`base` is 8453).
 *
 * @example
 * const { facilitator } = createLocalFacilitator({ rpcUrl, chain, privateKey })
 */
export const createLocalFacilitator = ({
  rpcUrl,
  chain,
  privateKey,
}: CreateLocalFacilitatorParameters): CreateLocalFacilitatorReturnType => {
  // The nonce manager gives concurrent settlements distinct nonces. It is per facilitator, not
  // viem's global one: that caches the last nonce per address and chain id, which would run ahead
  // of a second devnet started in the same process with the same key and chain id.
  const account = privateKeyToAccount(privateKey, {
    nonceManager: createNonceManager({ source: jsonRpc() }),
  })
  const client = createWalletClient({
    account,
    chain,
    transport: http(rpcUrl),
    // Anvil mines on submit, so receipts exist at once; viem's 4 s default would add latency.
    pollingInterval: 50,
  }).extend(publicActions)

  const signer = toFacilitatorEvmSigner({
    address: account.address,
    getCode: (args) => client.getCode(args),
    readContract: (args) =>
      client.readContract({ ...args, args: args.args ?? [] } as Parameters<
        typeof client.readContract
      >[0]),
    verifyTypedData: (args) =>
      client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    writeContract: (args) =>
      client.writeContract({ ...args, args: args.args ?? [] } as Parameters<
        typeof client.writeContract
      >[0]),
    sendTransaction: (args) => client.sendTransaction(args),
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
  })

  const facilitator = new x402Facilitator()
  registerExactEvmScheme(facilitator, { signer, networks: `eip155:${chain.id}` })
  return { facilitator, address: account.address }
}
