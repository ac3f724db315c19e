import { SafeText } from '@agents/service-kit'
import { z } from 'zod'

/** USDC has 6 decimals: 1 USD = 1_000_000 atomic units. */
export const USDC_DECIMALS = 6
const UNIT = 10n ** BigInt(USDC_DECIMALS)

/**
 * A USD amount on the wire: a decimal string (or a JSON number, read as its
 * shortest decimal form) with at most 6 decimals, greater than zero, up to
 * `max` dollars. Becomes bigint atomic units: money is never a float here.
 */
export const UsdAmount = (max: number) =>
  z.union([SafeText, z.number()]).transform((value, context) => {
    const text = typeof value === 'number' ? String(value) : value.trim()
    const match = /^(\d{1,12})(?:\.(\d{1,6}))?$/.exec(text)
    if (!match) {
      context.addIssue({
        code: 'custom',
        message: 'expected a positive USD amount with at most 6 decimals, e.g. "2.5"',
      })
      return z.NEVER
    }
    const atomic = BigInt(match[1]!) * UNIT + BigInt((match[2] ?? '').padEnd(6, '0'))
    if (atomic <= 0n || atomic > BigInt(max) * UNIT) {
      context.addIssue({ code: 'custom', message: `must be more than 0 and at most ${max}` })
      return z.NEVER
    }
    return atomic
  })

/** Atomic units back to a plain decimal string without trailing zeros ("2.5", "0.000001", "3"). */
export const formatUsd = (atomic: bigint): string => {
  const whole = atomic / UNIT
  const fraction = (atomic % UNIT).toString().padStart(6, '0').replace(/0+$/, '')
  return fraction ? `${whole}.${fraction}` : `${whole}`
}
