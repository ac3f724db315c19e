import { describe, expect, it } from 'vitest'
import { isReservedHandle } from './is-reserved-handle.ts'
import { ORDINARY_HANDLES, RESERVED_LOOK_ALIKES } from './reserved-handle-fixtures.ts'

describe('isReservedHandle', () => {
  it.each(RESERVED_LOOK_ALIKES)('refuses %j', (handle) => {
    expect(isReservedHandle(handle)).toBe(true)
  })
  it.each(ORDINARY_HANDLES)('accepts %j', (handle) => {
    expect(isReservedHandle(handle)).toBe(false)
  })
})
