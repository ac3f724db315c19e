import { ApiError, document, errors, json, parseInput, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'
import { requireOperator } from '../wallet-session/operator-guard.ts'
import { lookUpOrder } from './order-lookup.ts'
import { ordersByStatus } from './order-state.ts'
import { revenueTotals } from './revenue.ts'

const OrderQuery = z
  .object({
    orderId: SafeText.max(300).optional(),
    transaction: SafeText.max(200).optional(),
  })
  .refine((query) => (query.orderId === undefined) !== (query.transaction === undefined), {
    message: 'give orderId or transaction, not both',
  })

const Order = z
  .object({
    orderId: z.string(),
    kind: z.string(),
    status: z.enum(['challenged', 'fulfilled', 'failed']),
    ownerId: z.number().int().nullable(),
    amountUsdc: z.string(),
    receiptId: z.string().nullable(),
    transaction: z.string().nullable(),
    failureReason: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    revenue: z
      .object({ rail: z.string(), amountUsdc: z.string(), reserveUsdc: z.string() })
      .nullable(),
    credited: z.array(
      z.object({
        wallet: z.string(),
        credits: z.number().int(),
        reason: z.string(),
        at: z.string(),
      }),
    ),
  })
  .openapi('Order')

const Totals = z
  .object({
    orders_by_status: z.object({
      challenged: z.number().int(),
      fulfilled: z.number().int(),
      failed: z.number().int(),
    }),
    revenue_usdc: z.string().openapi({ example: '56.10' }),
    buyback_reserve_usdc: z.string().openapi({ example: '5.61' }),
  })
  .openapi('OrderTotals')

/** The operator's order look-up (refund e-mails) and the revenue totals. */
export const registerOrderRoutes = (app: VenueApp, deps: VenueDeps) => {
  // The guard travels with each route: it holds whatever else is registered first.
  const operator = requireOperator(deps)

  const lookupPath = document(app, {
    method: 'get',
    path: '/admin/orders',
    limit: LIMIT.read,
    summary: 'An order by its id or by the transaction that paid it, with its revenue and credits',
    security: SECURITY.operator,
    request: { query: OrderQuery },
    responses: {
      200: json(Order, 'the order'),
      ...errors({
        400: 'give orderId or transaction, not both',
        401: 'operator credential required',
        403: 'operator credential not recognised',
        404: 'no such order',
      }),
    },
  })
  app.get(lookupPath, operator, async (c) => {
    const query = parseInput(OrderQuery, c.req.query(), 'give orderId or transaction, not both')
    const order = await lookUpOrder(deps.database, query)
    if (!order) throw new ApiError(404, 'no such order')
    c.header('cache-control', 'no-store')
    return c.json(order)
  })

  const totalsPath = document(app, {
    method: 'get',
    path: '/admin/orders/totals',
    limit: LIMIT.read,
    summary: 'Orders by status, revenue and the buyback reserve (USDC decimal strings)',
    security: SECURITY.operator,
    responses: {
      200: json(Totals, 'the totals'),
      ...errors({ 401: 'operator credential required', 403: 'operator credential not recognised' }),
    },
  })
  app.get(totalsPath, operator, async (c) =>
    c.json({
      orders_by_status: await ordersByStatus(deps.database),
      ...(await revenueTotals(deps.database)),
    }),
  )
}
