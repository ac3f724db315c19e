export {
  CommaList,
  ConfigError,
  LogLevel,
  loadConfig,
  Port,
  serviceConfigShape,
} from './config.ts'
export { type App, type AppEnv, type CreateAppParameters, createApp } from './create-app.ts'
export { ApiError, type ErrorExtras, errorBody } from './errors.ts'
export { type Es256Key, loadEs256Key } from './es256-key.ts'
export { bearerToken } from './http/bearer-token.ts'
export { escapeHtml } from './http/escape-html.ts'
export { isJsonMediaType } from './http/is-json-media-type.ts'
export { readJsonBody } from './http/read-json-body.ts'
export { type JsonRouteInput, type JsonRouteOptions, jsonRoute } from './json-route.ts'
export { type CreateLoggerParameters, createLogger, type Logger } from './logger.ts'
export { defineMcpTool, type McpTool, type MountMcpParameters, mountMcp } from './mcp.ts'
export { document, ErrorResponse, errors, freeRead, json } from './openapi.ts'
export {
  checkPublicUrl,
  isNonPublicAddress,
  type PublicUrlCheck,
  type PublicUrlOptions,
} from './outbound.ts'
export { parseInput } from './parse-input.ts'
export { ROW_ID_MAX, RowId, RowIdParam } from './row-id.ts'
export { NUL_MESSAGE, SafeText } from './safe-text.ts'
export { type SanitizedError, sanitizeError } from './sanitize-error.ts'
export { seededRandom } from './seeded-random.ts'
export { type RunningServer, type ServeParameters, serve } from './serve.ts'
export { openApiGaps, postJson, startTestServer, undocumentedRoutes } from './testing.ts'
