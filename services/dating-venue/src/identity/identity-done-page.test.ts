import { expect, test } from 'vitest'
import { identityDonePage } from './identity-done-page.ts'

const SESSION = '0ee71b1d-4632-497d-8ab7-3bb01468a863'

test('default: repeats a status Didit sends as a hint and says what happens next', () => {
  const page = identityDonePage({
    status: 'Approved',
    verificationSessionId: SESSION,
    nonce: 'n0nce',
  })
  expect(page).toContain('<html lang="en">')
  expect(page).toContain('<strong id="reported-status">Approved</strong>')
  expect(page).toContain('cannot confirm anything by itself')
  expect(page).toContain('Contact details are shown only when both of you are verified')
  expect(page).toContain(`<code id="session-reference">${SESSION}</code>`)
  expect(page).toContain('<style nonce="n0nce">')
  expect(page).not.toContain('<script')
})

test('behavior: each status of the callback has its own next step', () => {
  const next = (status: string | undefined) =>
    /<p id="next">([^<]*)<\/p>/.exec(
      identityDonePage({ status, verificationSessionId: undefined, nonce: 'n' }),
    )?.[1]
  expect(next('Declined')).toMatch(/^Nothing about you is shared/)
  expect(next('In Review')).toMatch(/^The provider is reviewing your check by hand/)
  expect(next(undefined)).toMatch(/^The link did not say how the check went/)
  expect(new Set(['Approved', 'Declined', 'In Review', undefined].map(next)).size).toBe(4)
})

test('behavior: other query text is never echoed', () => {
  const page = identityDonePage({
    status: '<script>alert(1)</script> Approved',
    verificationSessionId: '"><img src=x onerror=alert(1)>',
    nonce: 'n',
  })
  expect(page).not.toContain('alert(1)')
  expect(page).not.toContain('reported-status')
  expect(page).not.toContain('session-reference')
  expect(page).toContain('The link did not say how the check went')
})
