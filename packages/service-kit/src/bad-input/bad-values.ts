import fc from 'fast-check'

const INT4_MAX = 2 ** 31 - 1

/** A string holding U+0000: the given valid value with one inserted somewhere, or any text around one. */
export const stringWithNul = (valid: string) =>
  fc.oneof(
    fc.nat({ max: valid.length }).map((at) => `${valid.slice(0, at)}\u0000${valid.slice(at)}`),
    fc
      .tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }))
      .map(([before, after]) => `${before}\u0000${after}`),
  )

/** An integer no int4 id column can hold, or a negative one. */
export const integerOutOfRange = () =>
  fc.oneof(
    fc.constantFrom(INT4_MAX + 1, 2 ** 32, Number.MAX_SAFE_INTEGER, -1, -(2 ** 31) - 1),
    fc.integer({ min: INT4_MAX + 1, max: Number.MAX_SAFE_INTEGER }),
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: -1 }),
  )

/** Values every walk tries first, whatever the generators then draw. */
export const stringExamples = (valid: string) => [
  `${valid}\u0000`,
  `${valid.slice(0, Math.ceil(valid.length / 2))}\u0000${valid.slice(Math.ceil(valid.length / 2))}`,
]
export const integerExamples = [INT4_MAX + 1, -1]
export const paramExamples = (valid: string) => [...stringExamples(valid), String(INT4_MAX + 1)]

/** A bad value for a path or query param: either kind, as text. */
export const paramText = (valid: string) =>
  fc.oneof(stringWithNul(valid), integerOutOfRange().map(String))
