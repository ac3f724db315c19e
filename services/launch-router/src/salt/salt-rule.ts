import { getAddress, isAddress } from 'viem'
import { z } from 'zod'

const Hex = z.string().regex(/^0x[0-9a-fA-F]+$/, 'expected 0x-prefixed hex')
const AddressString = z
  .string()
  .refine((value) => isAddress(value, { strict: false }), 'expected an address')

/**
 * A condition on a CREATE2 address, as pads state them (launch-pads notes):
 * a hex suffix (Flap 8888/7777), the low bits of a Uniswap v4 hook's flags,
 * or sorting below the paired token (token0 ordering).
 */
export const SaltRule = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('address-suffix'),
      hex: z.string().regex(/^[0-9a-fA-F]{1,16}$/, '1 to 16 hex digits'),
    })
    .strict(),
  z
    .object({
      type: z.literal('address-low-bits'),
      bits: z.number().int().min(1).max(64),
      value: Hex,
    })
    .strict(),
  z.object({ type: z.literal('address-below'), token: AddressString }).strict(),
])
export type SaltRule = z.infer<typeof SaltRule>

/**
 * What the miner tests: `(lane & mask) == value` on output lane 3 (address
 * bytes 12..19, little-endian), then, for `address-below`, a full comparison.
 */
export type CompiledSaltRule = { mask: bigint; value: bigint; below?: Uint8Array }

/** Reverses the bytes of a 64-bit value: big-endian address tail -> little-endian lane. */
const byteSwap64 = (value: bigint) => {
  let swapped = 0n
  for (let byte = 0; byte < 8; byte++)
    swapped = (swapped << 8n) | ((value >> BigInt(8 * byte)) & 0xffn)
  return swapped
}

export const compileSaltRule = (rule: SaltRule): CompiledSaltRule => {
  switch (rule.type) {
    case 'address-suffix': {
      const mask = (1n << BigInt(4 * rule.hex.length)) - 1n
      return { mask: byteSwap64(mask), value: byteSwap64(BigInt(`0x${rule.hex}`)) }
    }
    case 'address-low-bits': {
      const mask = rule.bits === 64 ? 2n ** 64n - 1n : (1n << BigInt(rule.bits)) - 1n
      return { mask: byteSwap64(mask), value: byteSwap64(BigInt(rule.value) & mask) }
    }
    case 'address-below': {
      const token = getAddress(rule.token)
      return { mask: 0n, value: 0n, below: Uint8Array.from(Buffer.from(token.slice(2), 'hex')) }
    }
    default:
      throw new Error(`unknown salt rule ${(rule as { type: string }).type}`)
  }
}

/** Whether an address satisfies a rule: the independent check every mined salt passes. */
export const addressSatisfies = (address: string, rule: SaltRule): boolean => {
  const value = BigInt(address)
  switch (rule.type) {
    case 'address-suffix':
      return address.toLowerCase().endsWith(rule.hex.toLowerCase())
    case 'address-low-bits': {
      const mask = (1n << BigInt(rule.bits)) - 1n
      return (value & mask) === (BigInt(rule.value) & mask)
    }
    case 'address-below':
      return value < BigInt(rule.token)
    default:
      throw new Error(`unknown salt rule ${(rule as { type: string }).type}`)
  }
}
