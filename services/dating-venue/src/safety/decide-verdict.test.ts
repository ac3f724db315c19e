import { expect, test } from 'vitest'
import { type DecideVerdictParameters, decideVerdict } from './decide-verdict.ts'

const none: DecideVerdictParameters = { personalData: [], deny: [] }

test('default: nothing found allows', () => {
  expect(decideVerdict(none)).toEqual({ verdict: 'allow', reason: 'ok', categories: [] })
})

test.each([
  [{ personalData: ['phone', 'email'] }, 'block', 'personal data: phone, email'],
  [{ deny: ['minors'] }, 'block', 'minor or under-18 content'],
  [{ deny: ['sexual_solicitation'] }, 'block', 'sexual solicitation'],
  [{ deny: ['harassment'] }, 'block', 'harassment or threat'],
  [{ deny: ['scam'] }, 'block', 'scam pattern'],
  [{ deny: ['money'] }, 'block', 'money request'],
  [{ deny: ['profanity'] }, 'hold', 'profanity'],
  [{ moderation: ['sexual/minors'] }, 'block', 'moderation: sexual/minors'],
  [{ moderation: ['harassment/threatening'] }, 'block', 'moderation: harassment/threatening'],
  [{ moderation: ['hate/threatening'] }, 'block', 'moderation: hate/threatening'],
  [{ moderation: ['violence/graphic'] }, 'block', 'moderation: violence/graphic'],
  [{ moderation: ['self-harm/instructions'] }, 'block', 'moderation: self-harm/instructions'],
  [{ moderation: ['harassment'] }, 'hold', 'moderation: harassment'],
  [{ moderation: ['sexual', 'violence'] }, 'hold', 'moderation: sexual, violence'],
  [{ moderation: ['flagged'] }, 'hold', 'moderation: flagged'],
] as const)('mapping: %j -> %s (%s)', (found, verdict, reason) => {
  expect(decideVerdict({ ...none, ...found })).toMatchObject({ verdict, reason })
})

test('behavior: the strongest finding names the reason; categories list all, sorted', () => {
  expect(
    decideVerdict({
      personalData: ['handle'],
      deny: ['profanity', 'money'],
      moderation: ['harassment'],
    }),
  ).toEqual({
    verdict: 'block',
    reason: 'personal data: handle',
    categories: ['moderation:harassment', 'money', 'personal_data:handle', 'profanity'],
  })
  expect(decideVerdict({ ...none, deny: ['money', 'minors', 'scam'] }).reason).toBe(
    'minor or under-18 content',
  )
  expect(decideVerdict({ ...none, deny: ['profanity'], moderation: ['hate/threatening'] })).toEqual(
    {
      verdict: 'block',
      reason: 'moderation: hate/threatening',
      categories: ['moderation:hate/threatening', 'profanity'],
    },
  )
})

test('behavior: a report describing abuse is held, not blocked; personal data still blocks', () => {
  expect(decideVerdict({ ...none, deny: ['harassment'], kind: 'report' })).toMatchObject({
    verdict: 'hold',
    reason: 'harassment or threat',
  })
  expect(decideVerdict({ ...none, moderation: ['sexual/minors'], kind: 'report' }).verdict).toBe(
    'hold',
  )
  expect(decideVerdict({ ...none, personalData: ['email'], kind: 'report' }).verdict).toBe('block')
  expect(decideVerdict({ ...none, deny: ['harassment'], kind: 'turn' }).verdict).toBe('block')
})
