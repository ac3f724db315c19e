import { setTimeout as sleep } from 'node:timers/promises'
import type { HttpBindings } from '@hono/node-server'
import type { SettleResponse } from '@x402/core/types'
import type { Context } from 'hono'
import type { SettleFault } from './facilitator-behavior.ts'

export type AnswerSettleFaultParameters = {
  fault: Exclude<SettleFault, { settle: 'down' }>
  /** What the facilitator returned (the transfer has happened if `success`). */
  settlement: SettleResponse
  /** The true answer to `/settle`. */
  answer: Response
}

/**
 * Answers a `/settle` that has already run on-chain the way `fault` says: reset, late, 500 or
 * held. `reset` needs the Node socket, so the app must be served by `@hono/node-server`.
 *
 * @example
 * return answerSettleFault(c, { fault: { settle: 'error' }, settlement, answer: c.json(settlement) })
 */
export const answerSettleFault = async (
  c: Context<{ Bindings: Partial<HttpBindings> }>,
  { fault, settlement, answer }: AnswerSettleFaultParameters,
): Promise<Response> => {
  switch (fault.settle) {
    case 'reset': {
      const socket = c.env?.incoming?.socket
      if (!socket)
        throw new Error('settle: reset needs a Node socket (serve with @hono/node-server)')
      // An RST, not a FIN: the caller sees ECONNRESET with no status line. @hono/node-server's
      // later write of `answer` to the destroyed socket is dropped.
      socket.resetAndDestroy()
      return answer
    }
    case 'late':
      await sleep(fault.delayMs)
      return answer
    case 'error':
      return c.json({ error: 'internal' }, 500)
    case 'hold':
      fault.onSettled?.(settlement)
      // Resolved or rejected, the hold is over: the money moved, so the answer is the truth.
      await fault.until.catch(() => undefined)
      return answer
    default:
      throw new Error(`unknown settle fault: ${JSON.stringify(fault satisfies never)}`)
  }
}
