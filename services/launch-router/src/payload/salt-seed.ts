import { type Hex, keccak256, stringToHex } from 'viem'
import type { NormalizedIntent } from '../intent/draft-intent.ts'

/** JSON with object keys sorted at every depth: one text per value. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * The miner's starting point, derived from the normalised intent alone, so
 * every replica mines the same salt for the same intent and the service
 * keeps no state. Domain-separated and versioned.
 */
export const saltSeed = (intent: NormalizedIntent): Hex =>
  keccak256(stringToHex(`launch-router/salt-seed/v1:${canonicalJson(intent)}`))
