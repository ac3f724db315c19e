import { type App, jsonRoute } from '@agents/service-kit'
import type { VenueDeps } from '../deps.ts'
import { postRoute } from '../openapi.ts'
import { HeartFileBody, submitHeartFile } from './heart-file.ts'

/** Filing a dating doc (paid). */
export const registerIntakeRoutes = (app: App, deps: VenueDeps) => {
  jsonRoute(
    app,
    postRoute(
      '/api/intake/heart-file',
      'File a dating doc (paid: doc_submit 1.00 USDC)',
      HeartFileBody,
    ),
    (c, body) => submitHeartFile(deps, c.req.raw, body),
    { validationMessage: 'invalid heart-file' },
  )
}
