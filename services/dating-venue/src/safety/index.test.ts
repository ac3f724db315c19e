import { expect, test } from 'vitest'
import * as safety from './index.ts'

test('exports', () => {
  expect(Object.keys(safety).sort()).toMatchInlineSnapshot(`
    [
      "BLOCKING_MODERATION_CATEGORIES",
      "DENY_PATTERNS",
      "DENY_PHRASES",
      "DenyPhraseError",
      "ModerationOptions",
      "ModerationUnavailableError",
      "SAFETY_REASONS",
      "createDenyList",
      "createSafetyCheck",
      "decideVerdict",
      "moderateText",
      "screenPersonalData",
    ]
  `)
})
