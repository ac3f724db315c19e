/**
 * Keccak-f[1600] constants, derived the way FIPS 202 defines them rather than
 * pasted as tables, so a typo cannot hide in 24 magic numbers.
 */

/** Lane index in the 5x5 state: x is the column, y the row. */
export const lane = (x: number, y: number) => ((x % 5) + 5 * (y % 5)) as number

/** rho offsets, indexed by lane: walk (x, y) -> (y, 2x + 3y), offset (t+1)(t+2)/2 mod 64. */
export const rotationOffsets: readonly number[] = (() => {
  const offsets = new Array<number>(25).fill(0)
  let x = 1
  let y = 0
  for (let t = 0; t < 24; t++) {
    offsets[lane(x, y)] = (((t + 1) * (t + 2)) / 2) % 64
    ;[x, y] = [y, (2 * x + 3 * y) % 5]
  }
  return offsets
})()

/** pi: the lane that lane (x, y) moves to, (y, 2x + 3y). */
export const piTarget = (x: number, y: number) => lane(y, 2 * x + 3 * y)

/** iota round constants from the degree-8 LFSR x^8 + x^6 + x^5 + x^4 + 1. */
export const roundConstants: readonly bigint[] = (() => {
  let state = 1
  const rcBit = () => {
    const bit = state & 1
    state = state & 0x80 ? ((state << 1) ^ 0x71) & 0xff : (state << 1) & 0xff
    return bit
  }
  const constants: bigint[] = []
  for (let round = 0; round < 24; round++) {
    let constant = 0n
    for (let j = 0; j < 7; j++) {
      if (rcBit()) constant |= 1n << BigInt(2 ** j - 1)
    }
    constants.push(constant)
  }
  return constants
})()
