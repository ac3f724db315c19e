import { type App, jsonRoute } from '@agents/service-kit'
import type { VenueDeps } from '../deps.ts'
import { postRoute, SECURITY } from '../openapi.ts'
import { PersonaBody, submitPersona } from './admission.ts'

/** Entering a persona. */
export const registerAdmissionRoutes = (app: App, deps: VenueDeps) => {
  jsonRoute(
    app,
    postRoute('/api/personas', 'Enter a persona: adult gate, chaperone, capacity', PersonaBody, {
      security: SECURITY.optionalCredential,
    }),
    async (c, body) => {
      const answer = await submitPersona(deps, body, c.req.header('authorization'))
      return c.json(answer.body, answer.status)
    },
    { validationMessage: 'invalid persona' },
  )
}
