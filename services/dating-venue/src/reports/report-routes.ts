import { answerOf, clientAddress, errors, json, jsonRoute } from '@agents/service-kit'
import { createRoute } from '@hono/zod-openapi'
import { acceptCredential, optionalCredentialOf } from '../credentials/actor-middleware.ts'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'
import { REPORT_ERRORS } from './report-errors.ts'
import { ReportBody, ReportFiled } from './report-schemas.ts'
import { fileReport } from './reports.ts'

/** Reports. */
export const registerReportRoutes = (app: VenueApp, deps: VenueDeps) => {
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/report',
      limit: LIMIT.write,
      summary: 'Report a persona, post, turn or couple',
      description:
        'Reporters are told apart by their credential, else by their address; enough distinct reporters hold the item until an operator looks at it.',
      security: SECURITY.optionalCredential,
      request: { body: json(ReportBody, 'the report') },
      responses: {
        200: json(ReportFiled, 'filed'),
        ...errors({
          400: `${REPORT_ERRORS.invalidReport} (issues; no such target)`,
          401: `credential required: ${REPORT_ERRORS.reportingWhat} (an Authorization that is not a bearer)`,
          403: 'credential not recognised',
          413: 'body too large',
          415: 'not JSON',
        }),
      },
    }),
    async (c, body) => {
      const outcome = await fileReport(deps, {
        body,
        actor: optionalCredentialOf(c),
        clientAddress: clientAddress(c, { trustForwardedFor: deps.trustForwardedFor }) ?? 'unknown',
      })
      return c.json(answerOf(outcome), 200)
    },
    {
      validationMessage: REPORT_ERRORS.invalidReport,
      middleware: [acceptCredential(deps, REPORT_ERRORS.reportingWhat)],
    },
  )
}
