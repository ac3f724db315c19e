import { createRoute, type z } from '@hono/zod-openapi'
import { ErrorResponse, ProblemResponse } from '../schemas.ts'

const json = <schema extends z.ZodType>(schema: schema, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})

/** The OpenAPI route of one operation: `POST /api/v1/<operation>`, JSON in, JSON out. */
export const operationRoute = <body extends z.ZodType, response extends z.ZodType>({
  operation,
  summary,
  description,
  body,
  response,
  extraResponses = {},
}: {
  operation: string
  summary: string
  description?: string
  body: body
  response: response
  extraResponses?: Record<number, ReturnType<typeof json>>
}) =>
  createRoute({
    method: 'post',
    path: `/api/v1/${operation}`,
    operationId: operation,
    summary,
    // Every operation only reads the matrix and computes; mining is charged apart (`chargeMining`).
    limit: 'read',
    ...(description ? { description } : {}),
    request: { body: { required: true, content: { 'application/json': { schema: body } } } },
    responses: {
      200: json(response, 'success'),
      400: json(
        ErrorResponse,
        'malformed JSON, or a body that is not exactly the documented object (zod issues attached)',
      ),
      413: json(ErrorResponse, 'body over the size limit'),
      415: json(ErrorResponse, 'body is not application/json'),
      422: json(
        ProblemResponse,
        'well-formed, but names something the matrix cannot serve: an unknown pad, or an intent with errors (the same list draft_intent reports). The list operations never return it.',
      ),
      ...extraResponses,
    },
  })

export { json as jsonResponse }
