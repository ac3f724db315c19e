import { ed25519 } from '@noble/curves/ed25519'
import { base58 } from '@scure/base'
import { getAddress, isAddress } from 'viem'
import type { ChainId } from '../matrix/pad.ts'

export type CheckCreatorResult = { ok: true; value: string } | { ok: false; problem: string }

const describe = (value: unknown) =>
  value === undefined ? 'missing' : `got ${JSON.stringify(value)?.slice(0, 48)}`

const EVM_SHAPE = /^0x[0-9a-fA-F]{40}$/
// Base58 (Bitcoin alphabet: no 0, O, I, l); a 32-byte key is 32 to 44 characters.
const BASE58_SHAPE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/

/** True for a CAIP-2 Solana chain id (`solana:<genesis hash prefix>`). */
export const isSolanaChain = (chainId: ChainId | undefined): boolean =>
  typeof chainId === 'string' && chainId.startsWith('solana:')

/**
 * Checks the creator for the intent's chain family, with the same code
 * (`creator_invalid`) either way. EVM: 0x + 40 hex, EIP-55 when mixed case,
 * not zero; normalised to the checksum. Solana: base58 of exactly 32 bytes in
 * its canonical spelling, not the zero key, and on the ed25519 curve: the
 * creator signs the launch (pump.fun's `user` is the fee payer and signer),
 * and a program-derived address, which is off the curve, cannot sign.
 */
export const checkCreator = (value: unknown, chainId: ChainId | undefined): CheckCreatorResult =>
  isSolanaChain(chainId) ? checkSolanaCreator(value, chainId as string) : checkEvmCreator(value)

const checkEvmCreator = (value: unknown): CheckCreatorResult => {
  if (typeof value !== 'string' || !EVM_SHAPE.test(value)) {
    const solana = typeof value === 'string' && BASE58_SHAPE.test(value)
    return {
      ok: false,
      problem: solana
        ? 'creator looks like a Solana address; this chain takes an EVM address, 0x followed by 40 hex digits'
        : `creator must be 0x followed by 40 hex digits (${describe(value)})`,
    }
  }
  if (!isAddress(value, { strict: true })) {
    return {
      ok: false,
      problem: 'creator has mixed case that fails the EIP-55 checksum; check the address',
    }
  }
  // Every SDK-deploy pad's SDK refuses a zero token admin (clanker-sdk: "Admin cannot be zero address").
  if (/^0x0{40}$/.test(value)) return { ok: false, problem: 'creator must not be the zero address' }
  return { ok: true, value: getAddress(value) }
}

const checkSolanaCreator = (value: unknown, chainId: string): CheckCreatorResult => {
  if (typeof value === 'string' && EVM_SHAPE.test(value)) {
    return {
      ok: false,
      problem: `creator is an EVM address; ${chainId} takes a base58 Solana public key`,
    }
  }
  if (typeof value !== 'string' || !BASE58_SHAPE.test(value)) {
    return {
      ok: false,
      problem: `creator must be a base58 Solana public key, 32 to 44 characters of the base58 alphabet (${describe(value)})`,
    }
  }
  const bytes = base58.decode(value)
  if (bytes.length !== 32)
    return {
      ok: false,
      problem: `creator must decode to a 32-byte public key; it decodes to ${bytes.length} bytes`,
    }
  // Leading '1's encode zero bytes: only the canonical spelling names the key unambiguously.
  if (base58.encode(bytes) !== value)
    return { ok: false, problem: 'creator is not in canonical base58 form' }
  if (bytes.every((byte) => byte === 0))
    return { ok: false, problem: 'creator must not be the zero key (the System Program)' }
  try {
    ed25519.ExtendedPoint.fromHex(bytes)
  } catch {
    return {
      ok: false,
      problem:
        'creator is off the ed25519 curve (a program-derived address); the creator signs the launch, so it must be a wallet key',
    }
  }
  return { ok: true, value }
}
