import { expect, test } from 'vitest'
import * as swapSeller from './index.ts'

test('exports', () => {
  expect(Object.keys(swapSeller).sort()).toMatchInlineSnapshot(`
    [
      "BaseError",
      "ChatCompletionRequest",
      "CompletionRefusal",
      "GrantClaims",
      "GrantError",
      "GrantReason",
      "HubKeysUnavailableError",
      "SERVICE_NAME",
      "SERVICE_VERSION",
      "SellerConfig",
      "TOKENS_PER_MTOK",
      "TOKENS_REMAINING_HEADER",
      "capCompletionTokens",
      "countPromptTokens",
      "createMemoryMeter",
      "createSellerProxy",
      "getHubJwks",
      "getTokenCounter",
      "meterCompletionStream",
      "readConfig",
      "requireGrant",
      "serveCompletion",
      "serveCompletionStream",
      "startSeller",
      "verifyGrant",
    ]
  `)
})
