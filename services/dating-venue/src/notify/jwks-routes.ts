import type { App } from '@agents/service-kit'
import type { VenueDeps } from '../deps.ts'
import { documentRoute, jsonResponses, SECURITY } from '../openapi.ts'

/** The venue's public keys. */
export const registerJwksRoute = (app: App, deps: VenueDeps) => {
  const jwksPath = documentRoute(app, {
    method: 'get',
    path: '/.well-known/jwks.json',
    summary: "The venue's public keys: agents verify its signed callbacks with them",
    security: SECURITY.none,
    responses: jsonResponses(),
  })
  app.get(jwksPath, (c) => c.json(deps.signer.jwks))
}
