import { type Address, keccak256, stringToHex } from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'

/**
 * Anvil's well-known dev keys (mnemonic "test test ... junk", indices 1-3). Both chains fund them
 * at genesis: 10,000 ETH on the Base devnet and pathUSD (plus the other test TIP-20s) on Tempo,
 * so the payers need no setup there. Never use them anywhere real.
 */
export const DEVNET_PRIVATE_KEYS = {
  payer: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  payer2: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  facilitator: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
} as const

/** Anvil dev account 0: unlocked on both chains; deploys and administers USDC. */
export const DEVNET_ADMIN: Address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'

export type DevnetAccounts = {
  payer: PrivateKeyAccount
  payer2: PrivateKeyAccount
  payee: Address
  payee2: Address
  feeRecipient: Address
}

/**
 * Fixed recipients derived from a label, so they are the same every run yet start with no
 * balance on either chain (unlike anvil's dev accounts).
 */
const labelAddress = (label: string): Address =>
  privateKeyToAddress(keccak256(stringToHex(`agents devnet ${label}`)))

/** The devnet's throwaway accounts; identical on every start. */
export const getDevnetAccounts = (): DevnetAccounts => ({
  payer: privateKeyToAccount(DEVNET_PRIVATE_KEYS.payer),
  payer2: privateKeyToAccount(DEVNET_PRIVATE_KEYS.payer2),
  payee: labelAddress('payee'),
  payee2: labelAddress('payee2'),
  feeRecipient: labelAddress('fee recipient'),
})
