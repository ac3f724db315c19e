import { expect, test } from 'vitest'
import { extractAge } from './extract-age.ts'

const on = (date: string) => Date.parse(`${date}T12:00:00Z`)

test('default: `age` in id_verification', () => {
  expect(extractAge({ id_verification: { status: 'Approved', age: 34 } })).toBe(34)
})

test('behavior: the v3 list and the v1 kyc spelling', () => {
  expect(extractAge({ id_verifications: [{ age: 21 }, { age: 60 }] })).toBe(21)
  expect(extractAge({ kyc: { date_of_birth: '2000-01-01' } }, on('2026-01-01'))).toBe(26)
})

test('behavior: date of birth around the birthday, in UTC', () => {
  const decision = { id_verification: { date_of_birth: '2008-06-01' } }
  expect(extractAge(decision, on('2026-05-31'))).toBe(17)
  expect(extractAge(decision, on('2026-06-01'))).toBe(18)
  // 23:59 on 31 May in UTC is still before the birthday, whatever the local zone.
  expect(extractAge(decision, Date.parse('2026-05-31T23:59:59Z'))).toBe(17)
})

test('behavior: a 29 February birthday counts from 1 March', () => {
  const decision = { id_verification: { date_of_birth: '2008-02-29' } }
  expect(extractAge(decision, on('2026-02-28'))).toBe(17)
  expect(extractAge(decision, on('2026-03-01'))).toBe(18)
})

test('behavior: age and date of birth disagree: the smaller wins', () => {
  const decision = { id_verification: { age: 18, date_of_birth: '2009-01-01' } }
  expect(extractAge(decision, on('2026-06-01'))).toBe(17)
})

test('behavior: nothing usable', () => {
  expect(extractAge(undefined)).toBeUndefined()
  expect(extractAge('Approved')).toBeUndefined()
  expect(extractAge({ liveness: { score: 90 } })).toBeUndefined()
  expect(extractAge({ id_verification: { age: '34' } })).toBeUndefined()
  expect(extractAge({ id_verification: { age: 17.5 } })).toBeUndefined()
  expect(extractAge({ id_verification: { date_of_birth: '2001-02-30' } })).toBeUndefined()
  expect(extractAge({ id_verification: { date_of_birth: '01/02/2001' } })).toBeUndefined()
  expect(extractAge({ id_verification: { date_of_birth: '2030-01-01' } }, on('2026-01-01'))).toBe(
    undefined,
  )
})
