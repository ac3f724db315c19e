import { saleAnswerResponse, saleResponse } from '@agents/payments'
import { answerOf, errors, json, jsonRoute, RowId } from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import { credentialOf, requireCredential } from '../credentials/actor-middleware.ts'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import { paidNote } from '../orders/paid-item-text.ts'
import { PaymentChallenge } from '../orders/payment-answers.ts'
import { verifyPaymentAhead } from '../orders/verify-payment-ahead.ts'
import type { VenueApp } from '../venue-env.ts'
import { REPORT_ERRORS } from './compatibility-errors.ts'
import { buyCompatibilityReport } from './compatibility-report.ts'
import { reportAnswer, reportItem } from './report-item.ts'

export const ReportBody = z
  .object({
    ownerId: RowId,
    coupleId: RowId.optional().openapi({
      description: 'a couple the owner is in; omit for a report on the own doc',
    }),
  })
  .strict()
  .openapi('CompatibilityReportRequest')

const ReportAnswer = z
  .object({
    ok: z.literal(true),
    orderId: z.string().openapi({ example: 'cr:12:0:2026-11-24' }),
    receiptId: z
      .string()
      .openapi({ description: 'the payment ledger reference of the paying receipt' }),
    report: z
      .string()
      .nullable()
      .openapi({ description: 'null when every text was withheld by the safety check' }),
    withheld: z.string().optional(),
  })
  .openapi('CompatibilityReport')

const Credited = z
  .object({
    error: z.literal(REPORT_ERRORS.undelivered),
    orderId: z.string(),
    receiptId: z.string(),
    credited: z
      .number()
      .int()
      .openapi({ description: 'chat credits added to the owner (25 per USDC)' }),
  })
  .strict()
  .openapi('ReportCredited')

/** The paid compatibility report. */
export const registerCompatibilityRoutes = (app: VenueApp, deps: VenueDeps) => {
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: reportItem.path,
      limit: LIMIT.challenge,
      summary: `A private compatibility report for an owner, alone or with a couple (paid: ${paidNote(reportItem)})`,
      description:
        'One order a day per owner and couple (`cr:<ownerId>:<coupleId or 0>:<utc_day>`): paid once, asked again the same day it answers the same report free. With an MPP payment in `Authorization`, send the credential in `X-Venue-Credential`.',
      security: SECURITY.credential,
      request: { body: json(ReportBody, 'whose report, and on which couple') },
      responses: {
        200: json(ReportAnswer, 'the report'),
        402: json(PaymentChallenge, 'payment required, or `payment not verified` with the reason'),
        409: json(
          z.object({ error: z.string(), orderId: z.string().optional() }).passthrough(),
          'no dating doc on file, or another payment for this order is being settled',
        ),
        502: json(Credited, 'paid, but the venue could not deliver: credited'),
        ...errors({
          400: REPORT_ERRORS.invalidBody,
          401: 'credential required',
          403: 'credential not recognised, or not acting for this owner, or owner not in this couple',
          404: 'no such owner, or no such couple',
          415: 'not JSON',
          503: 'payment outcome unknown: retry with the same payment (Retry-After, reference); or, with a payment, the outbound budget of paid requests is spent (Retry-After; nothing charged)',
        }),
      },
    }),
    async (c, body) => {
      const outcome = await buyCompatibilityReport(deps, {
        actor: credentialOf(c),
        ownerId: body.ownerId,
        coupleId: body.coupleId,
        request: c.req.raw,
      })
      const bought = answerOf(outcome)
      if ('paidToday' in bought) return saleAnswerResponse(bought.paidToday)
      return saleResponse(bought.outcome, {
        answer: (fulfilment, receipt) => reportAnswer(fulfilment, receipt.reference),
      })
    },
    {
      validationMessage: REPORT_ERRORS.invalidBody,
      middleware: [
        verifyPaymentAhead(deps, reportItem),
        requireCredential(deps, 'buying a report for an owner'),
      ],
    },
  )
}
