import type { Page } from 'playwright-core'
import type { TypedDataDefinition } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'

/**
 * Gives a page an injected EIP-1193 wallet (`window.ethereum`) that signs
 * with a local key: `eth_requestAccounts`, `personal_sign` (SIWE) and
 * `eth_signTypedData_v4` (an EIP-3009 authorization, as x402 asks).
 * Anything else is refused, as a wallet would.
 */
export const injectTestWallet = async (page: Page, account: PrivateKeyAccount) => {
  await page.exposeBinding('testSign', async (_source, hex: string) =>
    account.signMessage({ message: { raw: hex as `0x${string}` } }),
  )
  await page.exposeBinding('testSignTyped', async (_source, json: string) => {
    const { domain, types, primaryType, message } = JSON.parse(json)
    const { EIP712Domain: _, ...rest } = types
    return account.signTypedData({
      domain: { ...domain, chainId: BigInt(domain.chainId) },
      types: rest,
      primaryType,
      message: {
        ...message,
        value: BigInt(message.value),
        validAfter: BigInt(message.validAfter),
        validBefore: BigInt(message.validBefore),
      },
    } as TypedDataDefinition)
  })
  await page.addInitScript((address) => {
    type Signers = {
      testSign: (hex: unknown) => Promise<string>
      testSignTyped: (json: unknown) => Promise<string>
    }
    const signers = window as unknown as Signers
    ;(window as unknown as { ethereum: unknown }).ethereum = {
      request: async ({ method, params }: { method: string; params?: unknown[] }) => {
        if (method === 'eth_requestAccounts') return [address]
        if (method === 'personal_sign') return signers.testSign(params![0])
        if (method === 'eth_signTypedData_v4') return signers.testSignTyped(params![1])
        throw new Error(`unsupported ${method}`)
      },
    }
  }, account.address)
}
