import { type App, jsonRoute } from '@agents/service-kit'
import type { VenueDeps } from '../deps.ts'
import { postRoute, SECURITY } from '../openapi.ts'
import { AgentBody, registerAgent, VerifyBody, verifyAgent } from './agents.ts'

/** Agent endpoints: registration and proof of control. */
export const registerAgentRoutes = (app: App, deps: VenueDeps) => {
  jsonRoute(
    app,
    postRoute(
      '/api/intake/agent',
      'Register an agent endpoint: returns its challenge nonce',
      AgentBody,
      {
        security: SECURITY.optionalCredential,
      },
    ),
    async (c, body) => c.json(await registerAgent(deps, body, c.req.header('authorization'))),
    { validationMessage: 'invalid agent' },
  )
  jsonRoute(
    app,
    postRoute(
      '/api/intake/agent/verify',
      'Prove control of an endpoint: signature, echo or callback',
      VerifyBody,
    ),
    async (c, body) => {
      const answer = await verifyAgent(deps, body)
      return c.json(answer.body, answer.status)
    },
    { validationMessage: 'invalid verify' },
  )
}
