import {
  type Account,
  type Address,
  type Chain,
  type Client,
  type Hex,
  maxUint256,
  type PublicActions,
  type TestActions,
  type Transport,
  type WalletActions,
} from 'viem'
import { fiatTokenAbi } from './fiat-token-abi.ts'
import { readFiatTokenRuntime, readSignatureCheckerBytecode } from './read-fiat-token-runtime.ts'

/** Circle's USDC proxy on Base mainnet; @x402/evm's default asset for `eip155:8453`. */
export const BASE_USDC_ADDRESS: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

export type AnvilClient = Client<Transport, Chain, Account | undefined> &
  PublicActions<Transport, Chain> &
  WalletActions<Chain> &
  TestActions

export type InstallUsdcParameters = {
  /** An unlocked anvil account; becomes owner, master minter, pauser, blacklister and minter. */
  admin: Address
  mints: readonly { to: Address; amount: bigint }[]
  address?: Address
}

/**
 * Puts Circle's FiatTokenV2_2 at the canonical Base USDC address and mints to `mints`, so that
 * its EIP-712 domain is name "USD Coin", version "2" on the devnet's chain id.
 *
 * @example
 * await installUsdc(client, { admin, mints: [{ to: payer, amount: 1_000_000_000n }] })
 */
export const installUsdc = async (
  client: AnvilClient,
  { admin, mints, address = BASE_USDC_ADDRESS }: InstallUsdcParameters,
): Promise<Address> => {
  const deployHash = await client.sendTransaction({
    account: admin,
    chain: client.chain,
    data: readSignatureCheckerBytecode(),
  })
  const { contractAddress } = await waitForSuccess(client, deployHash)
  if (!contractAddress) throw new Error('SignatureChecker deployment returned no address')

  // setCode skips the constructor, so storage starts empty and `initialized` is false: the
  // initialize chain below runs exactly as it did behind Circle's proxy.
  await client.setCode({
    address,
    bytecode: readFiatTokenRuntime({ signatureChecker: contractAddress }),
  })

  const token = { account: admin, chain: client.chain, address, abi: fiatTokenAbi } as const
  const send = async (hash: Promise<Hex>) => waitForSuccess(client, await hash)
  await send(
    client.writeContract({
      ...token,
      functionName: 'initialize',
      args: ['USD Coin', 'USDC', 'USD', 6, admin, admin, admin, admin],
    }),
  )
  await send(client.writeContract({ ...token, functionName: 'initializeV2', args: ['USD Coin'] }))
  await send(client.writeContract({ ...token, functionName: 'initializeV2_1', args: [admin] }))
  await send(client.writeContract({ ...token, functionName: 'initializeV2_2', args: [[], 'USDC'] }))
  await send(
    client.writeContract({ ...token, functionName: 'configureMinter', args: [admin, maxUint256] }),
  )
  for (const { to, amount } of mints)
    await send(client.writeContract({ ...token, functionName: 'mint', args: [to, amount] }))
  return address
}

const waitForSuccess = async (client: AnvilClient, hash: Hex) => {
  const receipt = await client.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new Error(`USDC setup transaction ${hash} reverted`)
  return receipt
}
