import type { x402Facilitator } from '@x402/core/facilitator'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { Hono } from 'hono'

/** How the devnet facilitator answers: normally, after a delay, or 503 for everything. */
export type FacilitatorBehavior = 'normal' | 'down' | { delayMs: number }

export type CreateFacilitatorAppParameters = {
  getBehavior: () => FacilitatorBehavior
}

type FacilitatorRequest = {
  x402Version: number
  paymentPayload: PaymentPayload
  paymentRequirements: PaymentRequirements
}

/**
 * The x402 facilitator HTTP surface (`POST /verify`, `POST /settle`, `GET /supported`) that
 * `HTTPFacilitatorClient` from `@x402/core/server` talks to.
 *
 * @example
 * const app = createFacilitatorApp(facilitator, { getBehavior: () => 'normal' })
 */
export const createFacilitatorApp = (
  facilitator: x402Facilitator,
  { getBehavior }: CreateFacilitatorAppParameters,
) => {
  const app = new Hono()

  app.use(async function facilitatorBehavior(c, next) {
    const behavior = getBehavior()
    if (behavior === 'down') return c.json({ error: 'facilitator is down (devnet behavior)' }, 503)
    if (typeof behavior === 'object')
      await new Promise((resolve) => setTimeout(resolve, behavior.delayMs))
    await next()
  })

  app.get('/supported', (c) => c.json(facilitator.getSupported()))

  app.post('/verify', async (c) => {
    const body = await readFacilitatorRequest(c.req.raw)
    if (!body)
      return c.json({ error: 'expected { x402Version, paymentPayload, paymentRequirements }' }, 400)
    try {
      return c.json(await facilitator.verify(body.paymentPayload, body.paymentRequirements))
    } catch (error) {
      // Unregistered scheme/network and similar faults: answer in the verify shape so
      // HTTPFacilitatorClient raises a VerifyError carrying the reason.
      return c.json(
        {
          isValid: false,
          invalidReason: 'unexpected_verify_error',
          invalidMessage: messageOf(error),
        },
        400,
      )
    }
  })

  app.post('/settle', async (c) => {
    const body = await readFacilitatorRequest(c.req.raw)
    if (!body)
      return c.json({ error: 'expected { x402Version, paymentPayload, paymentRequirements }' }, 400)
    try {
      return c.json(await facilitator.settle(body.paymentPayload, body.paymentRequirements))
    } catch (error) {
      return c.json(
        {
          success: false,
          errorReason: 'unexpected_settle_error',
          errorMessage: messageOf(error),
          transaction: '',
          network: body.paymentRequirements.network,
        },
        400,
      )
    }
  })

  return app
}

const readFacilitatorRequest = async (
  request: Request,
): Promise<FacilitatorRequest | undefined> => {
  const body: unknown = await request.json().catch(() => undefined)
  if (typeof body !== 'object' || body === null) return undefined
  const { paymentPayload, paymentRequirements } = body as Record<string, unknown>
  if (typeof paymentPayload !== 'object' || paymentPayload === null) return undefined
  if (typeof paymentRequirements !== 'object' || paymentRequirements === null) return undefined
  return body as FacilitatorRequest
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))
