import { serveLocal } from '@agents/devnet'
import {
  address,
  createSignerFromKeyPair,
  getAddressEncoder,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
} from '@solana/kit'
import { x402Facilitator } from '@x402/core/facilitator'
import type { FacilitatorSvmSigner } from '@x402/svm'
import { registerExactSvmScheme } from '@x402/svm/exact/facilitator'
import { Hono } from 'hono'
import { LiteSVM } from 'litesvm'
import { associatedTokenAccount } from '../x402/solana-transaction.ts'

export type SolanaLiteSvm = Awaited<ReturnType<typeof startSolanaLiteSvm>>

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'

/**
 * A Solana chain in this process (LiteSVM: the real SPL Token, Compute Budget
 * and Memo programs, no validator, no network), with USDC's mint placed at
 * its mainnet address; a JSON-RPC stand-in over it for the paying client
 * (`getAccountInfo`, `getLatestBlockhash`); and a real x402 facilitator
 * (`@x402/svm` exact, its key the fee payer) over HTTP.
 */
export const startSolanaLiteSvm = async ({ mint }: { mint: string }) => {
  const svm = new LiteSVM()
  const feePayerKeys = await crypto.subtle.generateKey({ name: 'Ed25519' }, false, [
    'sign',
    'verify',
  ])
  const feePayer = await createSignerFromKeyPair(feePayerKeys)
  svm.airdrop(address(feePayer.address) as never, 10_000_000_000n as never)

  const put = (at: string, data: Buffer) =>
    svm.setAccount({
      address: address(at),
      data: new Uint8Array(data),
      executable: false,
      lamports: svm.minimumBalanceForRentExemption(BigInt(data.length)),
      programAddress: address(TOKEN_PROGRAM),
      space: BigInt(data.length),
    } as never)
  // SPL mint (82 bytes): supply, 6 decimals, initialized.
  const mintData = Buffer.alloc(82)
  mintData.writeBigUInt64LE(10n ** 15n, 36)
  mintData.writeUInt8(6, 44)
  mintData.writeUInt8(1, 45)
  put(mint, mintData)
  const tokenAccountOf = (owner: string) => associatedTokenAccount(owner, mint, TOKEN_PROGRAM)
  /** Opens `owner`'s USDC account holding `amount`. */
  const fund = (owner: string, amount: bigint) => {
    const data = Buffer.alloc(165)
    data.set(getAddressEncoder().encode(address(mint)), 0)
    data.set(getAddressEncoder().encode(address(owner)), 32)
    data.writeBigUInt64LE(amount, 64)
    data.writeUInt8(1, 108) // initialized
    put(tokenAccountOf(owner), data)
  }
  const balance = (owner: string) => {
    const account = svm.getAccount(address(tokenAccountOf(owner)) as never)
    return account.exists ? Buffer.from(account.data).readBigUInt64LE(64) : 0n
  }

  const rpcApp = new Hono()
  rpcApp.post('/', async (c) => {
    const { id, method, params } = (await c.req.json()) as {
      id: unknown
      method: string
      params: unknown[]
    }
    const context = { slot: 1 }
    if (method === 'getAccountInfo') {
      const account = svm.getAccount(address(params[0] as string) as never)
      return c.json({
        jsonrpc: '2.0',
        id,
        result: {
          context,
          value: account.exists
            ? {
                data: [Buffer.from(account.data).toString('base64'), 'base64'],
                executable: account.executable,
                lamports: Number(account.lamports),
                owner: account.programAddress,
                rentEpoch: 0,
                space: account.data.length,
              }
            : null,
        },
      })
    }
    if (method === 'getLatestBlockhash')
      return c.json({
        jsonrpc: '2.0',
        id,
        result: {
          context,
          value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: 1000 },
        },
      })
    return c.json({ jsonrpc: '2.0', id, error: { code: -32601, message: `${method} not served` } })
  })

  const decode = (base64: string) => getTransactionDecoder().decode(Buffer.from(base64, 'base64'))
  const failure = (result: object) =>
    'err' in result
      ? JSON.stringify((result as { err: () => unknown }).err(), (_key, value) =>
          typeof value === 'bigint' ? value.toString() : value,
        )
      : undefined
  const signer: FacilitatorSvmSigner = {
    getAddresses: () => [feePayer.address],
    signTransaction: async (transaction) =>
      getBase64EncodedWireTransaction(
        await partiallySignTransaction([feePayerKeys], decode(transaction) as never),
      ),
    // As an RPC's simulateTransaction with sigVerify off: verify simulates before the fee payer signs.
    simulateTransaction: async (transaction) => {
      svm.withSigverify(false)
      let result: object
      try {
        result = svm.simulateTransaction(decode(transaction) as never)
      } finally {
        svm.withSigverify(true)
      }
      const error = failure(result)
      if (error) throw new Error(`simulation failed: ${error}`)
    },
    sendTransaction: async (transaction) => {
      const result = svm.sendTransaction(decode(transaction) as never)
      const error = failure(result)
      if (error) throw new Error(`transaction failed: ${error}`)
      return getBase58Decoder().decode((result as { signature: () => Uint8Array }).signature())
    },
    // LiteSVM executes at once: a sent transaction is final.
    confirmTransaction: async () => {},
  }
  const facilitator = new x402Facilitator()
  registerExactSvmScheme(facilitator, { signer, networks: [SOLANA] })
  const facilitatorApp = new Hono()
  facilitatorApp.get('/supported', (c) => c.json(facilitator.getSupported()))
  facilitatorApp.post('/verify', async (c) => {
    const { paymentPayload, paymentRequirements } = await c.req.json()
    return c.json(await facilitator.verify(paymentPayload, paymentRequirements))
  })
  facilitatorApp.post('/settle', async (c) => {
    const { paymentPayload, paymentRequirements } = await c.req.json()
    return c.json(await facilitator.settle(paymentPayload, paymentRequirements))
  })

  const rpc = await serveLocal(rpcApp.fetch)
  const facilitatorServer = await serveLocal(facilitatorApp.fetch)
  return {
    feePayer: feePayer.address as string,
    rpcUrl: rpc.url,
    facilitatorUrl: facilitatorServer.url,
    fund,
    balance,
    close: async () => {
      await rpc.close()
      await facilitatorServer.close()
    },
  }
}
