import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import * as badInput from './bad-input/index.ts'
import * as db from './db/index.ts'
import * as kit from './index.ts'
import * as openapiResponseProblems from './openapi-response-problems.ts'

// Each entry point of package.json's `exports`: a value added or removed is a change to what
// every service may import, made here on purpose (types are not listed: they leave no value).
test('behavior: the package exports exactly these values (named, no export *)', () => {
  expect(Object.keys(kit).sort()).toEqual([
    'ApiError',
    'BaseUrl',
    'BudgetSpent',
    'CommaList',
    'ConfigError',
    'ErrorResponse',
    'ForwardedTrustSetting',
    'LIMITS_TABLE',
    'LIMIT_HEADERS',
    'LimitSetting',
    'LogLevel',
    'MAX_JSON_DEPTH',
    'NUL_MESSAGE',
    'Port',
    'ROW_ID_MAX',
    'Refused',
    'RowId',
    'RowIdParam',
    'SECURITY_HEADERS',
    'SafeText',
    'TooManyRequests',
    'UnpreparedClient',
    'answerOf',
    'bearerToken',
    'checkPublicUrl',
    'classOf',
    'clientAddress',
    'clientGroup',
    'componentNameClashes',
    'createApp',
    'createLimits',
    'createLogger',
    'createMetrics',
    'createOutboundBudget',
    'createRequestLimits',
    'credentialKey',
    'databaseOptions',
    'declaredRoutes',
    'defineMcpTool',
    'describePolicy',
    'document',
    'errorBody',
    'errors',
    'escapeHtml',
    'freeRead',
    'isJsonMediaType',
    'isNonPublicAddress',
    'isRefusal',
    'json',
    'jsonDepthExceeds',
    'jsonRoute',
    'limitHeaders',
    'limitJsonDepth',
    'limitOfRoute',
    'limitPolicies',
    'limitRequests',
    'limitSettings',
    'limitStoreFor',
    'loadConfig',
    'loadEs256Key',
    'matchedRoute',
    'mountMcp',
    'mountMetrics',
    'normalizeIp',
    'openApiGaps',
    'pageNonce',
    'parseBoundedJson',
    'parseInput',
    'pickForwardedFor',
    'pickForwardedHop',
    'postJson',
    'readJsonBody',
    'recordRequest',
    'refineBaseUrl',
    'refineDatabase',
    'refusal',
    'refusalBody',
    'refusalOf',
    'refusalResponse',
    'registerRoute',
    'requestAddress',
    'returnRefusal',
    'sanitizeError',
    'secureAnswers',
    'seededRandom',
    'serve',
    'serviceConfigShape',
    'startRoundRobinProxy',
    'startTestServer',
    'tooDeepMessage',
    'tooManyRequestsResponse',
    'undocumentedRoutes',
  ])
})

test('behavior: @agents/service-kit/db exports exactly these values', () => {
  expect(Object.keys(db).sort()).toEqual([
    'PreparingPglite',
    'QueryOutsideTransactionError',
    'UnpreparedClient',
    'createTestDatabase',
    'createTransactionGuard',
    'isUniqueViolation',
    'openDatabase',
    'pgArray',
    'preparedOnce',
    'rowsOf',
    'runExclusive',
    'testBackends',
    'throughPooler',
  ])
})

test('behavior: @agents/service-kit/bad-input exports exactly these values', () => {
  expect(Object.keys(badInput).sort()).toEqual([
    'FOREIGN_HOST',
    'answerText',
    'hostNamed',
    'integerOutOfRange',
    'listOperations',
    'listPositions',
    'mcpToolCall',
    'paramText',
    'resolveSchema',
    'sampleFromSchema',
    'sendRaw',
    'stringWithNul',
    'walkAnswerHeaders',
    'walkBadInput',
    'walkDeepInput',
    'walkForeignHost',
  ])
})

test('behavior: @agents/service-kit/openapi-response-problems exports exactly these values', () => {
  expect(Object.keys(openapiResponseProblems).sort()).toEqual(['openApiResponseProblems'])
})

test('behavior: those are every entry point package.json exports', () => {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  expect(manifest.exports).toEqual({
    '.': './src/index.ts',
    './db': './src/db/index.ts',
    './bad-input': './src/bad-input/index.ts',
    './openapi-response-problems': './src/openapi-response-problems.ts',
  })
})
