import type { App } from '@agents/service-kit'
import { createRoute, type RouteConfig, z } from '@hono/zod-openapi'

/** Any JSON object: the venue's answers are documented by the spec, not by schemas here. */
export const AnyJson = z.object({}).passthrough()

export const ErrorBody = z
  .object({ error: z.string(), issues: z.array(z.unknown()).optional() })
  .passthrough()
  .openapi('Error')

const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})

/** The usual answers: 200 with a JSON object, errors as `{ error }` (400 with `issues`). */
export const jsonResponses = (errors: Record<number, string> = {}) => ({
  200: json(AnyJson, 'done'),
  ...Object.fromEntries(
    Object.entries({ 400: 'bad input', ...errors }).map(([code, text]) => [
      code,
      json(ErrorBody, text),
    ]),
  ),
})

/** A JSON request body, as a route's `request.body`. */
export const jsonRequest = <schema extends z.ZodType>(schema: schema) => ({
  content: { 'application/json': { schema } },
})

/**
 * Who may call a route (OpenAPI `security`): `{}` stands for "no
 * credential" beside the schemes that are optional.
 */
export const SECURITY: Record<
  'credential' | 'optionalCredential' | 'login' | 'operator' | 'webhook' | 'none',
  Array<Record<string, string[]>>
> = {
  /** A venue credential (`vo_...` owner, `va_...` agent). */
  credential: [{ credential: [] }],
  /** No credential, or one that binds the request to an owner or persona. */
  optionalCredential: [{}, { credential: [] }],
  /** A signed-in human's login token. */
  login: [{ login: [] }],
  operator: [{ operator: [] }],
  webhook: [{ webhookSignature: [] }],
  none: [],
}

/** The security schemes SECURITY names, in `components.securitySchemes`. */
export const registerSecuritySchemes = (app: App) => {
  const { openAPIRegistry: registry } = app
  registry.registerComponent('securitySchemes', 'credential', {
    type: 'http',
    scheme: 'bearer',
    description:
      'A venue credential: `vo_<ownerId>_<secret>` (from intake) or `va_<endpointId>_<secret>` (from agent verify)',
  })
  registry.registerComponent('securitySchemes', 'login', {
    type: 'http',
    scheme: 'bearer',
    description: "A human's login token from a trusted issuer (or a SIWE token)",
  })
  registry.registerComponent('securitySchemes', 'operator', {
    type: 'http',
    scheme: 'bearer',
    description: 'VENUE_ADMIN_TOKEN',
  })
  registry.registerComponent('securitySchemes', 'webhookSignature', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Signature',
    description: 'hex HMAC-SHA256 of the raw body with the webhook secret, plus X-Timestamp',
  })
}

/** Documents a route whose handler is registered with app.get/app.post; returns Hono's path. */
export const documentRoute = <route extends RouteConfig>(app: App, route: route) => {
  app.openAPIRegistry.registerPath(createRoute(route))
  return route.path.replace(/\{(\w+)\}/g, ':$1')
}

/** A documented JSON POST route for `jsonRoute`: body schema, optional path params and security. */
export const postRoute = <
  schema extends z.ZodType,
  params extends z.ZodObject | undefined = undefined,
>(
  path: string,
  summary: string,
  schema: schema,
  { params, security }: { params?: params; security?: Array<Record<string, string[]>> } = {},
) =>
  createRoute({
    method: 'post',
    path,
    summary,
    ...(security ? { security } : {}),
    request: { body: jsonRequest(schema), params: params as params },
    responses: jsonResponses(),
  })
