import { expect, it } from 'vitest'
import { decodeBase64Json, encodeBase64Json } from './headers.ts'

const base64 = (text: string) => Buffer.from(text).toString('base64')

it('decodes base64 JSON, and refuses what is not base64 JSON or nests deeper than a body may', () => {
  expect(decodeBase64Json(encodeBase64Json({ x402Version: 2, payload: { a: [1] } }))).toEqual({
    x402Version: 2,
    payload: { a: [1] },
  })
  expect(decodeBase64Json('not base64!')).toBeUndefined()
  expect(decodeBase64Json(base64('{"a":'))).toBeUndefined()
  // A payment header under the 16 KiB header limit can still nest 5,000 deep.
  const deep = `{"x402Version":2,"payload":${'['.repeat(5_000)}${']'.repeat(5_000)}}`
  expect(deep.length).toBeLessThan(12_000)
  expect(decodeBase64Json(base64(deep))).toBeUndefined()
  expect(decodeBase64Json(base64(`${'['.repeat(64)}${']'.repeat(64)}`))).toEqual(expect.any(Array))
})
