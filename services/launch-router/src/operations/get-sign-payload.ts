import { isRefusal, type Refusal, refusal } from '@agents/service-kit'
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

/** Why a sign payload is not given: an intent with errors, a salt not found, or its mining budget spent. */
export type SignPayloadRefusal = Refusal<422 | 429 | 503>

/**
 * get_sign_payload and simulate_launch: one function, so the two answer the
 * same bytes for the same intent. Refused: an intent with errors is 422 with
 * the draft's `errors`; a salt search over its budget is 503, over its cap
 * 422. A new salt when the client's mining budget is spent is 429 (returned
 * by `chargeMining`). Returns synchronously unless the pad mines a salt.
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
): SignPayloadAnswer | SignPayloadRefusal | Promise<SignPayloadAnswer | SignPayloadRefusal> => {
  const draft = draftIntent(matrix, intent)
  if (!draft.ok || !draft.intent)
    return refusal(422, 'intent has errors', { errors: draft.errors, warnings: draft.warnings })
  const pad = matrix.byId.get(draft.intent.pad)!
  // One clock reading per answer: the payload's times and validUntil agree.
  const now = Math.floor(Date.now() / 1000)
  const built = buildSignPayload({ mineSalt }, { pad, intent: draft.intent, chargeMining, now })
  const validUntil = pad.validFor ? { validUntil: now + pad.validFor.seconds } : {}
  const answer = (result: BuildSignPayloadResult): SignPayloadAnswer | SignPayloadRefusal => {
    if (isRefusal(result)) return result
    if (result.ok) return { payload: result.payload, warnings: draft.warnings, ...validUntil }
    if (result.reason === 'time_budget')
      return refusal(503, 'salt mining ran out of its time budget; retry shortly', {
        reason: result.reason,
        tried: result.tried,
      })
    return refusal(
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
