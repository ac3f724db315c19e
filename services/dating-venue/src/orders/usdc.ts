/** Atomic units per USDC (6 decimals). */
export const USDC = 1_000_000n

/**
 * Atomic USDC as a decimal string for people and dashboards: at least two
 * decimals, no trailing zeros beyond them, never a float on the way.
 *
 * @example formatUsdc(5_000_000n) // '5.00'
 * @example formatUsdc(1_234_567n) // '1.234567'
 */
export const formatUsdc = (atomic: bigint): string => {
  const sign = atomic < 0n ? '-' : ''
  const magnitude = atomic < 0n ? -atomic : atomic
  const fraction = (magnitude % USDC)
    .toString()
    .padStart(6, '0')
    .replace(/0{1,4}$/, '')
  return `${sign}${magnitude / USDC}.${fraction.padEnd(2, '0')}`
}
