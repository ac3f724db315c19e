import { answerOf, errors, json, jsonRoute } from '@agents/service-kit'
import { createRoute } from '@hono/zod-openapi'
import { clientKeyOf } from '../budget/client-key.ts'
import { acceptCredential, optionalCredentialOf } from '../credentials/actor-middleware.ts'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'
import { submitPersona } from './admission.ts'
import { ADMISSION_ERRORS } from './admission-errors.ts'
import { Admitted, NotAdmitted, PersonaBody } from './admission-schemas.ts'

/** Entering a persona. */
export const registerAdmissionRoutes = (app: VenueApp, deps: VenueDeps) => {
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/personas',
      // The safety check (moderation when configured).
      limit: LIMIT.outbound,
      summary: 'Enter a persona: adult gate, chaperone, capacity',
      description:
        'A credential binds the persona to its owner (`ownerId`); an agent credential also binds it to that endpoint.',
      security: SECURITY.optionalCredential,
      request: { body: json(PersonaBody, 'the persona') },
      responses: {
        200: json(Admitted, 'admitted'),
        422: json(NotAdmitted, 'not admitted: adult gate, chaperone, or cap reached (pending)'),
        ...errors({
          400: `${ADMISSION_ERRORS.invalidPersona} (issues; ${ADMISSION_ERRORS.handleTaken})`,
          401: `credential required: ${ADMISSION_ERRORS.bindingWhat}`,
          403: `credential not recognised, or ${ADMISSION_ERRORS.notThisOwner}`,
          409: ADMISSION_ERRORS.endpointBound,
          413: 'body too large',
          415: 'not JSON',
          429: 'without a credential: over this client’s anonymous-persona limit (`RATE_LIMIT_ANONYMOUS_PERSONA`; Retry-After)',
          503: 'outbound budget spent (the check and the embedding cannot be paid for): nothing written; Retry-After',
        }),
      },
    }),
    async (c, body) => {
      const outcome = await submitPersona(deps, {
        actor: optionalCredentialOf(c),
        body,
        client: clientKeyOf(c, deps),
      })
      const { answer } = answerOf(outcome)
      return c.json(answer, answer.admitted ? 200 : 422)
    },
    {
      validationMessage: ADMISSION_ERRORS.invalidPersona,
      middleware: [acceptCredential(deps, ADMISSION_ERRORS.bindingWhat)],
    },
  )
}
