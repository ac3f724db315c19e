import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { checkRefusalLiterals, refusalLiterals } from './check-refusal-literals.ts'

const SAMPLE = `
import { refusal } from '@agents/service-kit'
type Outcome = { ok: true; id: number } | { ok: false; status: 404; error: string }
export const a = () => ({ ok: false, status: 404, error: 'no such thing' })
export const b = () => ({ ok: false as const, status: 409 as const, error: 'taken', reason: 'x' })
export const c = () => ({ status: 403, body: { error: 'not your wallet' } })
export const d = () => ({ kind: 'unavailable', status: 503, body: { error: 'down', reason: 'r' } })
export const e = () => ({ status: 410, error: 'window ended' })
`

const FINE = `
import { refusal } from '@agents/service-kit'
export const a = () => refusal(404, 'no such thing')
export const route = (c) => c.json({ error: 'bad' }, 400)
export const outbound = () => ({ ok: false, reason: 'bad_response', detail: 'x', status: 502 })
type Failure = { ok: false; reason: string; status?: number }
export const answer = () => ({ status: 200, body: { report: 'text' } })
export const row = { status: 'open', error: null }
`

describe('check-refusal-literals', () => {
  test('behavior: names the line of each hand-written refusal: literal, ProductRefusal-like and type', () => {
    expect(refusalLiterals(SAMPLE)).toEqual([
      '3: type { ok: false; status; error }',
      '4: { ok: false, status, error }',
      '5: { ok: false, status, error }',
      '6: { status, body: { error } }',
      '7: { status, body: { error } }',
      '8: { status, error }',
    ])
  })

  test("behavior: leaves refusal(), a route's own body, an outbound failure, a 200 answer and a row alone", () => {
    expect(refusalLiterals(FINE)).toEqual([])
  })

  test('behavior: scans packages and services, not service-kit, where refusal() builds the one literal', () => {
    const base = mkdtempSync(join(tmpdir(), 'refusal-lint-'))
    for (const [folder, text] of [
      ['packages/service-kit/src', SAMPLE],
      ['packages/payments/src', FINE],
      ['services/venue/src/deep', SAMPLE],
    ] as const) {
      mkdirSync(join(base, folder), { recursive: true })
      writeFileSync(join(base, folder, 'sample.ts'), text)
    }
    const found = checkRefusalLiterals(base)
    expect(found).toHaveLength(6)
    expect(found.every((line) => line.startsWith('services/venue/src/deep/sample.ts:'))).toBe(true)
  })

  test('behavior: the repository has none', () => {
    expect(checkRefusalLiterals()).toEqual([])
  })
})
