import { isRefusal } from '@agents/service-kit'
import type { z } from 'zod'
import type { Matrix } from '../matrix/load-matrix.ts'
import { draft } from '../operations/draft.ts'
import { getSignPayload, type SignPayloadDeps } from '../operations/get-sign-payload.ts'
import type { SaltMiner } from '../payload/mine-salt-cached.ts'
import { EmptyBody, IntentBody, PadBody } from '../schemas.ts'
import type { PrecomputedAnswers } from './precompute-answers.ts'

/** The operations the hot path answers, with the body schema each route declares. */
export const HOT_OPERATIONS = {
  list_pads: EmptyBody,
  list_networks: EmptyBody,
  get_capabilities: PadBody,
  draft_intent: IntentBody,
  get_sign_payload: IntentBody,
  simulate_launch: IntentBody,
} satisfies Record<string, z.ZodType>

export type HotOperation = keyof typeof HOT_OPERATIONS

export type AnswerOperationDeps = { matrix: Matrix; answers: PrecomputedAnswers }

/** The operations' own deps with the start-up answers (the routes and MCP tools take these). */
export type OperationDeps = SignPayloadDeps & { answers: PrecomputedAnswers }

// Factory intents never reach getSignPayload here, and no other kind mines.
const mineSalt: SaltMiner = () => Promise.reject(new Error('the hot path never mines'))

const isFactoryIntent = (matrix: Matrix, intent: Record<string, unknown>) =>
  typeof intent.pad === 'string' && matrix.byId.get(intent.pad)?.kind === 'party-factory'

/**
 * The 200 body of an operation, computed by the same functions as the
 * routes, or undefined when the answer is anything else (a body that fails
 * its schema, a refusal such as an unknown pad or an intent with errors, a
 * salt to mine): those the app answers, so every refusal keeps its one
 * implementation. A throw is a bug, not "not mine": it reaches the hot
 * path's error boundary (500), never the app. Pure: no limit is taken, no
 * salt is mined, nothing is logged.
 */
export const answerOperation = (
  deps: AnswerOperationDeps,
  operation: HotOperation,
  json: unknown,
): string | Buffer | undefined => {
  const parsed = HOT_OPERATIONS[operation].safeParse(json)
  if (!parsed.success) return undefined
  const { answers, matrix } = deps
  switch (operation) {
    case 'list_pads':
      return answers.listPads.bytes
    case 'list_networks':
      return answers.listNetworks.bytes
    case 'get_capabilities':
      return answers.capabilities.get((parsed.data as z.output<typeof PadBody>).pad)?.bytes
    case 'draft_intent':
      return JSON.stringify(draft(matrix, parsed.data as z.output<typeof IntentBody>))
    case 'get_sign_payload':
    case 'simulate_launch': {
      const { intent } = parsed.data as z.output<typeof IntentBody>
      // Mining takes the client's mining budget and a worker: the app's path.
      if (isFactoryIntent(matrix, intent)) return undefined
      const answer = getSignPayload({ matrix, mineSalt }, { intent })
      if (answer instanceof Promise) {
        // A salt to mine (only factory pads, which never get here): the app's.
        answer.catch(() => {})
        return undefined
      }
      return isRefusal(answer) ? undefined : JSON.stringify(answer)
    }
  }
}
