import type { HttpBindings } from '@hono/node-server'
import type { x402Facilitator } from '@x402/core/facilitator'
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import { Hono } from 'hono'
import { answerSettleFault } from './answer-settle-fault.ts'
import { type FacilitatorBehavior, getSettleFault } from './facilitator-behavior.ts'

export type CreateFacilitatorAppParameters = {
  getBehavior: () => FacilitatorBehavior
  /** Called for each `/settle` whose transfer succeeded on-chain, whatever its answer. */
  onSettlement?: (settlement: SettleResponse) => void
}

type FacilitatorRequest = {
  x402Version: number
  paymentPayload: PaymentPayload
  paymentRequirements: PaymentRequirements
}

/**
 * The x402 facilitator HTTP surface (`POST /verify`, `POST /settle`, `GET /supported`) that
 * `HTTPFacilitatorClient` from `@x402/core/server` talks to, with the fault switches of
 * {@link FacilitatorBehavior}. Serve it with `@hono/node-server` (`serveLocal`): the `reset`
 * fault destroys the Node socket.
 *
 * @example
 * const app = createFacilitatorApp(facilitator, { getBehavior: () => 'normal' })
 */
export const createFacilitatorApp = (
  facilitator: x402Facilitator,
  { getBehavior, onSettlement }: CreateFacilitatorAppParameters,
) => {
  const app = new Hono<{ Bindings: Partial<HttpBindings> }>()

  app.use(async function facilitatorBehavior(c, next) {
    const behavior = getBehavior()
    if (behavior === 'down') return c.json({ error: 'facilitator is down (devnet behavior)' }, 503)
    if (typeof behavior === 'object' && !('settle' in behavior))
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
    // Read once, on arrival: switching back to 'normal' mid-request does not undo a fault.
    const fault = getSettleFault(getBehavior())
    if (fault?.settle === 'down')
      return c.json({ error: 'facilitator is down before settle (devnet behavior)' }, 503)
    const body = await readFacilitatorRequest(c.req.raw)
    if (!body)
      return c.json({ error: 'expected { x402Version, paymentPayload, paymentRequirements }' }, 400)
    const { settlement, status } = await settle(facilitator, body)
    if (settlement.success) onSettlement?.(settlement)
    const answer = c.json(settlement, status)
    return fault ? answerSettleFault(c, { fault, settlement, answer }) : answer
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

const settle = async (
  facilitator: x402Facilitator,
  { paymentPayload, paymentRequirements }: FacilitatorRequest,
): Promise<{ settlement: SettleResponse; status: 200 | 400 }> => {
  try {
    return {
      settlement: await facilitator.settle(paymentPayload, paymentRequirements),
      status: 200,
    }
  } catch (error) {
    const settlement = {
      success: false,
      errorReason: 'unexpected_settle_error',
      errorMessage: messageOf(error),
      transaction: '',
      network: paymentRequirements.network,
    }
    return { settlement, status: 400 }
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))
