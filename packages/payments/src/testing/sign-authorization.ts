import { type Hex, type PrivateKeyAccount, toHex } from 'viem'
import { encodeBase64Json } from '../headers.ts'
import type { RequirementV2 } from '../x402/requirements.ts'

export type AuthorizationOverrides = Partial<{
  to: Hex
  value: bigint
  validAfter: bigint
  validBefore: bigint
  nonce: Hex
  /** Sign with this account while claiming to be `from`. */
  signer: PrivateKeyAccount
}>

/**
 * Signs an EIP-3009 TransferWithAuthorization for a requirement, as an x402
 * `exact` EVM client does, with any field overridable so tests can forge,
 * underpay, misdirect or expire a payment precisely.
 */
export const signAuthorization = async (
  account: PrivateKeyAccount,
  requirement: RequirementV2,
  { chainId = 8453, ...overrides }: AuthorizationOverrides & { chainId?: number } = {},
) => {
  const now = BigInt(Math.floor(Date.now() / 1000))
  const authorization = {
    from: account.address,
    to: (overrides.to ?? requirement.payTo) as Hex,
    value: overrides.value ?? BigInt(requirement.amount),
    validAfter: overrides.validAfter ?? now - 60n,
    validBefore: overrides.validBefore ?? now + 300n,
    nonce: overrides.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
  const signature = await (overrides.signer ?? account).signTypedData({
    domain: {
      name: 'USD Coin',
      version: '2',
      chainId,
      verifyingContract: requirement.asset as Hex,
    },
    types: {
      TransferWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  })
  return {
    signature,
    authorization: {
      from: authorization.from,
      to: authorization.to,
      value: authorization.value.toString(),
      validAfter: authorization.validAfter.toString(),
      validBefore: authorization.validBefore.toString(),
      nonce: authorization.nonce,
    },
  }
}

/** A v2 `PAYMENT-SIGNATURE` header value for a requirement (optionally with a tampered `accepted`). */
export const paymentSignatureHeader = async (
  account: PrivateKeyAccount,
  requirement: RequirementV2,
  overrides: AuthorizationOverrides & { accepted?: Partial<RequirementV2> } = {},
) =>
  encodeBase64Json({
    x402Version: 2,
    resource: { url: '/', description: '', mimeType: 'application/json' },
    accepted: { ...requirement, ...overrides.accepted },
    payload: await signAuthorization(account, requirement, overrides),
  })

/** A legacy v1 `X-PAYMENT` header value. */
export const xPaymentHeader = async (
  account: PrivateKeyAccount,
  requirement: RequirementV2,
  overrides: AuthorizationOverrides = {},
) =>
  encodeBase64Json({
    x402Version: 1,
    scheme: 'exact',
    network: requirement.network,
    payload: await signAuthorization(account, requirement, overrides),
  })
