import { x402Facilitator } from '@x402/core/facilitator'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator'
import {
  type Address,
  type Chain,
  createWalletClient,
  type Hex,
  http,
  type PublicActions,
  publicActions,
  WaitForTransactionReceiptTimeoutError,
} from 'viem'
import { createNonceManager, privateKeyToAccount } from 'viem/accounts'
import { jsonRpc } from 'viem/nonce'

export type CreateLocalFacilitatorParameters = {
  rpcUrl: string
  chain: Chain
  privateKey: Hex
  /**
   * How often a settle asks for its transaction's receipt, in ms (default 50).
   * Anvil can answer a sent transaction before its receipt can be read, so a
   * first check may miss and wait one whole interval.
   */
  receiptPollingMs?: number
}

export type CreateLocalFacilitatorReturnType = {
  facilitator: x402Facilitator
  address: Address
}

/**
 * Asks for a transaction's receipt every `intervalMs` until it is there.
 * Not viem's `waitForTransactionReceipt`: after a first miss it waits for
 * the next block number, and anvil can report a transaction's block before
 * its receipt can be read; with automine and nothing else sent, that next
 * block never comes and the settle hangs until its timeout. (At viem's
 * 50 ms the block number it reads is cached for 50 ms, which mostly hides
 * this; at 5 ms a sequential bench hung within a few hundred settles.)
 */
const pollReceipt = async (
  client: PublicActions,
  hash: Hex,
  { intervalMs, timeoutMs }: { intervalMs: number; timeoutMs: number },
) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined)
    if (receipt) return receipt
    if (Date.now() >= deadline) throw new WaitForTransactionReceiptTimeoutError({ hash })
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
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
  receiptPollingMs = 50,
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
    // Anvil mines on submit; viem's 4 s default would add latency to its polling.
    pollingInterval: receiptPollingMs,
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
    waitForTransactionReceipt: ({ hash, timeout = 180_000 }) =>
      pollReceipt(client, hash, { intervalMs: receiptPollingMs, timeoutMs: timeout }),
  })

  const facilitator = new x402Facilitator()
  registerExactEvmScheme(facilitator, { signer, networks: `eip155:${chain.id}` })
  return { facilitator, address: account.address }
}
