export { componentNameClashes } from './component-clashes.ts'
export {
  BaseUrl,
  CommaList,
  ConfigError,
  databaseOptions,
  LogLevel,
  loadConfig,
  Port,
  refineBaseUrl,
  refineDatabase,
  serviceConfigShape,
} from './config.ts'
export {
  type App,
  type AppEnv,
  type AppVariables,
  type CreateAppParameters,
  createApp,
  type NoVariables,
} from './create-app.ts'
export { UnpreparedClient } from './db/pool-clients.ts'
export { ApiError, type ErrorExtras, errorBody } from './errors.ts'
export { type Es256Key, loadEs256Key } from './es256-key.ts'
export { bearerToken } from './http/bearer-token.ts'
export {
  type ClientAddressParameters,
  clientAddress,
  type ForwardedTrust,
  pickForwardedFor,
  pickForwardedHop,
  requestAddress,
} from './http/client-address.ts'
export { clientGroup } from './http/client-group.ts'
export { escapeHtml } from './http/escape-html.ts'
export { isJsonMediaType } from './http/is-json-media-type.ts'
export {
  jsonDepthExceeds,
  limitJsonDepth,
  MAX_JSON_DEPTH,
  parseBoundedJson,
  tooDeepMessage,
} from './http/json-depth.ts'
export { normalizeIp } from './http/normalize-ip.ts'
export { readJsonBody } from './http/read-json-body.ts'
export { pageNonce, SECURITY_HEADERS, secureAnswers } from './http/secure-headers.ts'
export { type JsonRouteInput, type JsonRouteOptions, jsonRoute } from './json-route.ts'
export {
  type BudgetPolicies,
  BudgetSpent,
  type BudgetState,
  createOutboundBudget,
  type OutboundBudget,
  type Spender,
} from './limits/budget.ts'
export type { Client, TakeLimit } from './limits/client.ts'
export {
  type CreateRequestLimitsParameters,
  createRequestLimits,
  type RequestLimitCounters,
  type RequestLimits,
} from './limits/create-request-limits.ts'
export { ForwardedTrustSetting, limitPolicies, limitSettings } from './limits/limit-config.ts'
export { describePolicy, type LimitPolicy, LimitSetting } from './limits/limit-policy.ts'
export {
  type CredentialReader,
  classOf,
  credentialKey,
  type LimitRequestsParameters,
  limitHeaders,
  limitOfRoute,
  limitRequests,
  matchedRoute,
  TooManyRequests,
  tooManyRequestsResponse,
} from './limits/limit-requests.ts'
export {
  type CreateLimitsParameters,
  createLimits,
  LIMITS_TABLE,
  type LimitDecision,
  type LimitStore,
  type Limits,
  limitStoreFor,
} from './limits/limits.ts'
export { LIMIT_HEADERS } from './limits/openapi-limits.ts'
export {
  type DeclaredRoute,
  type DeclaredRoutes,
  declaredRoutes,
  type LimitDeclaration,
  type LimitedRoute,
  type MatchedRoute,
  type RouteLimit,
  type RouteLimits,
  registerRoute,
} from './limits/route-limit.ts'
export { type CreateLoggerParameters, createLogger, type Logger } from './logger.ts'
export {
  defineMcpTool,
  type McpCallContext,
  type McpTool,
  type MountMcpParameters,
  mountMcp,
} from './mcp.ts'
export {
  type CreateMetricsParameters,
  createMetrics,
  type Metrics,
  mountMetrics,
} from './metrics/metrics.ts'
export { document, ErrorResponse, errors, freeRead, json } from './openapi.ts'
export {
  checkPublicUrl,
  isNonPublicAddress,
  type PublicUrlCheck,
  type PublicUrlOptions,
} from './outbound.ts'
export { parseInput } from './parse-input.ts'
export { type AnswerHeaders, type RequestRecord, recordRequest } from './record-request.ts'
export {
  answerOf,
  isRefusal,
  type Refusal,
  Refused,
  refusal,
  refusalBody,
  refusalOf,
  refusalResponse,
  returnRefusal,
} from './refusal.ts'
export { startRoundRobinProxy } from './round-robin-proxy.ts'
export { ROW_ID_MAX, RowId, RowIdParam } from './row-id.ts'
export { NUL_MESSAGE, SafeText } from './safe-text.ts'
export { type SanitizedError, sanitizeError } from './sanitize-error.ts'
export { seededRandom } from './seeded-random.ts'
export { type RunningServer, type ServeParameters, serve } from './serve.ts'
export { openApiGaps, postJson, startTestServer, undocumentedRoutes } from './testing.ts'
