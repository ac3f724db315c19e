import type { ChainId } from '../matrix/pad.ts'

/**
 * Reads a chain id the way agents write them: 8453, "8453", "eip155:8453",
 * or a CAIP-2 id for a non-EVM chain. EVM chains normalise to numbers, the
 * form the matrix lists them in. Returns undefined for anything else.
 */
export const normalizeChainId = (value: unknown): ChainId | undefined => {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : undefined
  if (typeof value !== 'string') return undefined
  const evm = /^(?:eip155:)?([1-9][0-9]{0,15})$/.exec(value)
  if (evm) {
    const id = Number(evm[1])
    return Number.isSafeInteger(id) ? id : undefined
  }
  return /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/.test(value) ? value : undefined
}
