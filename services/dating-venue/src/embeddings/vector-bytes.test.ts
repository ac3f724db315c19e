import { expect, test } from 'vitest'
import { cosine } from './cosine.ts'
import { normalizeVector } from './normalize-vector.ts'
import { vectorFromBytes, vectorToBytes } from './vector-bytes.ts'

test('default', () => {
  const vector = Float32Array.from([1, -0.5, 0.25, 3.4028234663852886e38])
  const bytes = vectorToBytes(vector)
  expect(bytes.toString('hex')).toMatchInlineSnapshot(`"0000803f000000bf0000803effff7f7f"`)
  expect(Array.from(vectorFromBytes(bytes, 4))).toEqual(Array.from(vector))
})

test('behavior: round trip of a 512-d vector, also from an offset Uint8Array', () => {
  const vector = normalizeVector(Array.from({ length: 512 }, (_, i) => Math.sin(i * 0.37)))
  const bytes = vectorToBytes(vector)
  expect(bytes.byteLength).toBe(2048)
  // What a driver may hand back: a view into a larger buffer at an odd offset.
  const framed = new Uint8Array(bytes.byteLength + 3)
  framed.set(bytes, 3)
  const read = vectorFromBytes(framed.subarray(3), 512)
  expect(Array.from(read)).toEqual(Array.from(vector))
})

test('error: the byte count must match the dimension', () => {
  expect(() => vectorFromBytes(Buffer.alloc(2047), 512)).toThrow(/expected 2048 bytes/)
  expect(() => vectorFromBytes(Buffer.alloc(2048), 384)).toThrow(RangeError)
})

test('cosine', () => {
  expect(cosine([1, 0], [0, 1])).toBe(0)
  expect(cosine([1, 1], [2, 2])).toBeCloseTo(1, 12)
  expect(cosine([1, 0], [-3, 0])).toBeCloseTo(-1, 12)
  expect(cosine([0, 0], [1, 0])).toBe(0)
  expect(() => cosine([1], [1, 2])).toThrow(RangeError)
})

test('normalizeVector', () => {
  expect(Array.from(normalizeVector([3, 4]))).toEqual([0.6, 0.8].map(Math.fround))
  expect(() => normalizeVector([0, 0])).toThrow(/zero/)
  expect(() => normalizeVector([Number.NaN, 1])).toThrow(/not finite/)
})
