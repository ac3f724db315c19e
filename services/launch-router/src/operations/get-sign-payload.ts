import { ApiError } from '@agents/service-kit'
import { draftIntent } from '../intent/draft-intent.ts'
import type { IntentIssue } from '../intent/intent-issue.ts'
import type { Matrix } from '../matrix/load-matrix.ts'
import {
  type BuildSignPayloadResult,
  buildSignPayload,
  type SignPayload,
} from '../payload/build-sign-payload.ts'
import type { MiningCharge, SaltMiner } from '../payload/mine-salt-cached.ts'

export type SignPayloadDeps = { matrix: Matrix; mineSalt: SaltMiner }

export type SignPayloadAnswer = {
  payload: SignPayload
  warnings: IntentIssue[]
  /** Unix seconds: a payload that holds a time reverts if included in a later block. */
  validUntil?: number
}

/**
 * get_sign_payload and simulate_launch: one function, so the two answer the
 * same bytes for the same intent. An intent with errors is 422 with the
 * draft's `errors`; a salt search over its budget is 503, over its cap 422;
 * a new salt when the client's mining budget is spent is 429 (from `chargeMining`).
 * Returns synchronously unless the pad mines a salt.
 */
export const getSignPayload = (
  { matrix, mineSalt }: SignPayloadDeps,
  {
    intent,
    chargeMining,
  }: {
    intent: Record<string, unknown>
    /** The client's mining budget, charged only when a salt is newly mined (`chargeMining`). */
    chargeMining?: MiningCharge | undefined
  },
): SignPayloadAnswer | Promise<SignPayloadAnswer> => {
  const draft = draftIntent(matrix, intent)
  if (!draft.ok || !draft.intent) {
    throw new ApiError(422, 'intent has errors', { errors: draft.errors, warnings: draft.warnings })
  }
  const pad = matrix.byId.get(draft.intent.pad)!
  // One clock reading per answer: the payload's times and validUntil agree.
  const now = Math.floor(Date.now() / 1000)
  const built = buildSignPayload({ mineSalt }, { pad, intent: draft.intent, chargeMining, now })
  const validUntil = pad.validFor ? { validUntil: now + pad.validFor.seconds } : {}
  const answer = (result: BuildSignPayloadResult): SignPayloadAnswer => {
    if (result.ok) return { payload: result.payload, warnings: draft.warnings, ...validUntil }
    if (result.reason === 'time_budget') {
      throw new ApiError(503, 'salt mining ran out of its time budget; retry shortly', {
        reason: result.reason,
        tried: result.tried,
      })
    }
    throw new ApiError(
      422,
      'no salt satisfies the pad rule within the iteration cap; change the intent (for example its name) and retry',
      {
        errors: [
          { code: 'salt_not_found', field: '', message: `tried ${result.tried} candidates` },
        ],
        warnings: draft.warnings,
      },
    )
  }
  return built instanceof Promise ? built.then(answer) : answer(built)
}
