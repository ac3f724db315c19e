import { answerOf, errors, json, jsonRoute } from '@agents/service-kit'
import { createRoute } from '@hono/zod-openapi'
import { acceptCredential, optionalCredentialOf } from '../credentials/actor-middleware.ts'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'
import { AGENT_ERRORS } from './agent-errors.ts'
import {
  AgentActive,
  AgentBody,
  AgentNotActive,
  AgentRegistered,
  VerifyBody,
} from './agent-schemas.ts'
import { registerAgent } from './register-agent.ts'
import { verifyAgent } from './verify-agent.ts'

/** Agent endpoints: registration and proof of control. */
export const registerAgentRoutes = (app: VenueApp, deps: VenueDeps) => {
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/intake/agent',
      limit: LIMIT.write,
      summary: 'Register an agent endpoint: returns its challenge nonce',
      description:
        'Binding the endpoint to an owner (`ownerId`) or a persona (`personaId`) takes a credential acting for them.',
      security: SECURITY.optionalCredential,
      request: { body: json(AgentBody, 'the endpoint') },
      responses: {
        200: json(AgentRegistered, 'registered (pending until verified)'),
        ...errors({
          400: `${AGENT_ERRORS.invalidAgent} (issues: callbackUrl not public, no publicKey nor callbackUrl)`,
          401: `credential required: ${AGENT_ERRORS.bindingWhat}`,
          403: `credential not recognised; ${AGENT_ERRORS.notThisOwner}; ${AGENT_ERRORS.notThisPersona}`,
          413: 'body too large',
          415: 'not JSON',
        }),
      },
    }),
    async (c, body) => {
      const outcome = await registerAgent(deps, { actor: optionalCredentialOf(c), body })
      const { id, challengeNonce } = answerOf(outcome)
      return c.json({ id, challengeNonce }, 200)
    },
    {
      validationMessage: AGENT_ERRORS.invalidAgent,
      middleware: [acceptCredential(deps, AGENT_ERRORS.bindingWhat)],
    },
  )
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/intake/agent/verify',
      limit: LIMIT.write,
      summary: 'Prove control of an endpoint: signature, echo or callback',
      security: SECURITY.none,
      request: { body: json(VerifyBody, 'the proof') },
      responses: {
        200: json(AgentActive, 'active (the credential on the proof that activates)'),
        422: json(AgentNotActive, 'unknown endpoint, or the challenge is not satisfied'),
        ...errors({
          400: AGENT_ERRORS.invalidVerify,
          413: 'body too large',
          415: 'not JSON',
        }),
      },
    }),
    async (c, body) => {
      const answer = await verifyAgent(deps, body)
      return c.json(answer, answer.active ? 200 : 422)
    },
    { validationMessage: AGENT_ERRORS.invalidVerify },
  )
}
