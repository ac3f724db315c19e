import { document, json } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'

/** A JSON Web Key Set (RFC 7517): the venue's ES256 public keys. */
const Jwks = z
  .object({
    keys: z.array(
      z
        .object({
          kty: z.string().openapi({ example: 'EC' }),
          kid: z.string().optional(),
          crv: z.string().optional().openapi({ example: 'P-256' }),
          x: z.string().optional(),
          y: z.string().optional(),
          alg: z.string().optional().openapi({ example: 'ES256' }),
          use: z.string().optional(),
        })
        .passthrough(),
    ),
  })
  .openapi('Jwks')

/** The venue's public keys. */
export const registerJwksRoute = (app: VenueApp, deps: VenueDeps) => {
  const jwksPath = document(app, {
    method: 'get',
    path: '/.well-known/jwks.json',
    limit: LIMIT.read,
    summary: "The venue's public keys: agents verify its signed callbacks with them",
    security: SECURITY.none,
    responses: { 200: json(Jwks, 'the key set') },
  })
  app.get(jwksPath, (c) => c.json(deps.signer.jwks))
}
