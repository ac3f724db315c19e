import { afterEach, expect, test, vi } from 'vitest'
import { createSafetyCheck } from './create-safety-check.ts'

// The moderation endpoint through real HTTP is in moderation.test.ts; these run local rules only.
const safety = createSafetyCheck()

afterEach(() => {
  vi.restoreAllMocks()
})

test('default: clean prose is allowed by the local rules alone', async () => {
  expect(
    await safety('I love hiking, 90s hip hop and cooking for friends.', { kind: 'heart' }),
  ).toEqual({ verdict: 'allow', reason: 'ok', categories: [] })
})

test.each([
  ['text me at five five five, 867 5309', 'block', 'personal data: phone'],
  ['jane at gmail dot com or insta: jane_doe', 'block', 'personal data: email, handle'],
  ["I'm 16 and bored", 'block', 'minor or under-18 content'],
  ['send nudes', 'block', 'sexual solicitation'],
  ['venmo me $20 for the drinks', 'block', 'money request'],
  ['customs fee for my package', 'block', 'scam pattern'],
  ['kys', 'block', 'harassment or threat'],
  ['that movie was shit', 'hold', 'profanity'],
] as const)('mapping: %j -> %s (%s)', async (text, verdict, reason) => {
  expect(await safety(text, { kind: 'turn' })).toMatchObject({ verdict, reason })
})

test('behavior: the reason never quotes the text', async () => {
  const verdict = await safety('call 555-867-5309, jane@example.com, send nudes')
  expect(verdict.reason).toBe('personal data: email, phone')
  expect(JSON.stringify(verdict)).not.toMatch(/555|jane|nudes/)
})

test.each(['', '   ', '\n\t '])('behavior: blank text %j is blocked as empty', async (text) => {
  expect(await safety(text)).toEqual({ verdict: 'block', reason: 'empty text', categories: [] })
})

test('behavior: report texts quoting abuse are held for a human, not blocked', async () => {
  expect(await safety('they told me to kill yourself', { kind: 'report' })).toMatchObject({
    verdict: 'hold',
    reason: 'harassment or threat',
  })
  expect((await safety('they told me to kill yourself', { kind: 'turn' })).verdict).toBe('block')
})

test('behavior: extraPhrases reach the check', async () => {
  const strict = createSafetyCheck({ extraPhrases: { scam: ['crypto mentor'] } })
  expect(await strict('my crypto mentor can help you')).toMatchObject({
    verdict: 'block',
    reason: 'scam pattern',
  })
})

test('error: an exception in the local rules fails closed', async () => {
  vi.spyOn(String.prototype, 'normalize').mockImplementation(() => {
    throw new Error('boom')
  })
  expect(await safety('I love hiking')).toEqual({
    verdict: 'block',
    reason: 'safety check unavailable',
    categories: [],
    unavailable: true,
  })
})

test('error: moderation options are validated when the check is built', () => {
  expect(() => createSafetyCheck({ moderation: { url: 'not a url' } })).toThrow()
  expect(() => createSafetyCheck({ moderation: { url: 'http://x.test', timeoutMs: 0 } })).toThrow()
})
