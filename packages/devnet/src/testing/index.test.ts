import { expect, test } from 'vitest'
import * as testing from './index.ts'

test('exports', () => {
  expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
    [
      "sharedDevnet",
    ]
  `)
})
