import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { type CreateSiweMessageParameters, createSiweMessage, generateSiweNonce } from 'viem/siwe'
import { encodeSiweAuthToken } from '../../login/siwe-auth-token.ts'
import { SIWE_CHAIN_ID } from '../../login/verify-siwe-token.ts'

export type SignSiweLoginParameters = {
  domain: string
  /** A fresh key when omitted. */
  privateKey?: Hex
  /** Overrides of the EIP-4361 fields (issuedAt, expirationTime, nonce, ...). */
  fields?: Partial<CreateSiweMessageParameters>
}

/**
 * What a wallet does on the claim page, for tests: builds an EIP-4361
 * message for `domain`, signs it with `personal_sign` and packs both into
 * an `authToken`.
 *
 * @example const { authToken, address } = await signSiweLogin({ domain: 'localhost:3002' })
 */
export const signSiweLogin = async ({
  domain,
  privateKey = generatePrivateKey(),
  fields = {},
}: SignSiweLoginParameters) => {
  const account = privateKeyToAccount(privateKey)
  const message = createSiweMessage({
    domain,
    address: account.address,
    uri: `https://${domain}/claim`,
    version: '1',
    chainId: SIWE_CHAIN_ID,
    nonce: generateSiweNonce(),
    issuedAt: new Date(),
    statement: 'Sign in to the venue to claim your introduction.',
    ...fields,
  })
  const signature = await account.signMessage({ message })
  return {
    authToken: encodeSiweAuthToken({ message, signature }),
    address: account.address,
    message,
  }
}
