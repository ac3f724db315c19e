import { saleResponse } from '@agents/payments'
import { answerOf, errors, json, jsonRoute } from '@agents/service-kit'
import { createRoute } from '@hono/zod-openapi'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import { paidNote } from '../orders/paid-item-text.ts'
import { PaymentChallenge, PaymentPending } from '../orders/payment-answers.ts'
import type { VenueApp } from '../venue-env.ts'
import { heartFileAnswer, submitHeartFile } from './heart-file.ts'
import { heartFileItem } from './heart-file-item.ts'
import { INTAKE_ERRORS } from './intake-errors.ts'
import { AdultOnly, HeartFileBody, HeartFiled } from './intake-schemas.ts'

/** Filing a dating doc (paid). */
export const registerIntakeRoutes = (app: VenueApp, deps: VenueDeps) => {
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: heartFileItem.path,
      limit: LIMIT.challenge,
      summary: `File a dating doc (paid: ${paidNote(heartFileItem)})`,
      description:
        'The adult attestation and the personal-data screen come before the 402. The paying wallet is the owner: the first payment creates it and answers its credential once.',
      security: SECURITY.none,
      request: { body: json(HeartFileBody, 'the dating doc') },
      responses: {
        200: json(HeartFiled, 'filed'),
        402: json(PaymentChallenge, 'payment required, or `payment not verified` with the reason'),
        422: json(AdultOnly, INTAKE_ERRORS.adultOnly),
        503: json(
          PaymentPending,
          'payment outcome unknown: retry with the same payment (Retry-After)',
        ),
        ...errors({
          400: `${INTAKE_ERRORS.invalidHeartFile} (issues; personal data found outside contactRef)`,
          413: 'body too large',
          415: 'not JSON',
        }),
      },
    }),
    async (c, body) => {
      const outcome = await submitHeartFile(deps, { body, request: c.req.raw })
      return saleResponse(answerOf(outcome).outcome, { answer: heartFileAnswer(deps) })
    },
    { validationMessage: INTAKE_ERRORS.invalidHeartFile },
  )
}
