import { expect, test } from 'vitest'
import * as safety from './index.ts'

test('exports', () => {
  expect(Object.keys(safety).sort()).toMatchInlineSnapshot(`
    [
      "BLOCKING_MODERATION_CATEGORIES",
      "DENY_PATTERNS",
      "DENY_PHRASES",
      "DenyPhraseError",
      "MODERATION_BATCH_SIZE",
      "ModerationOptions",
      "ModerationUnavailableError",
      "SAFETY_REASONS",
      "checkMany",
      "createDenyList",
      "createSafetyCheck",
      "decideVerdict",
      "moderateText",
      "moderateTexts",
      "screenPersonalData",
    ]
  `)
})
