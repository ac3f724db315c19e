import { type App, jsonRoute } from '@agents/service-kit'
import type { VenueDeps } from '../deps.ts'
import { getClientAddress } from '../geo/index.ts'
import { postRoute, SECURITY } from '../openapi.ts'
import { fileReport, ReportBody } from './reports.ts'

/** Reports. */
export const registerReportRoutes = (app: App, deps: VenueDeps) => {
  jsonRoute(
    app,
    postRoute('/api/report', 'Report a persona, post, turn or couple', ReportBody, {
      security: SECURITY.optionalCredential,
    }),
    async (c, body) =>
      c.json(
        await fileReport(deps, body, {
          authorization: c.req.header('authorization'),
          clientAddress:
            getClientAddress(c, { trustForwardedFor: deps.trustForwardedFor }) ?? 'unknown',
        }),
      ),
    { validationMessage: 'invalid report' },
  )
}
