import type { Logger } from '@agents/service-kit'
import {
  type CompletionTokensField,
  capCompletionTokens,
} from '../completion/cap-completion-tokens.ts'
import type { ChatCompletionRequest } from '../completion/chat-completion-request.ts'
import type { CompletionRefusal } from '../completion/completion-refusal.ts'
import { TOKENS_PER_MTOK } from '../constants.ts'
import type { Grant } from '../grant/verify-grant.ts'
import type { GrantMeter } from '../meter/grant-meter.ts'
import { type ForwardCompletionDeps, forwardCompletion } from './forward-completion.ts'

export type ServeCompletionDeps = ForwardCompletionDeps & {
  meter: GrantMeter
  logger: Logger
  completionTokensField: CompletionTokensField
}

export type ServeCompletionParameters = { grant: Grant; request: ChatCompletionRequest }

export type ServeCompletionReturnType = { limitTokens: number; remainingTokens: number } & (
  | { ok: true; status: number; body: unknown }
  | { ok: false; reason: CompletionRefusal }
)

/**
 * Serves one chat completion against a grant: checks the model, then, alone
 * among the match's requests, checks what is left, caps the completion to
 * it, forwards, and records the upstream's usage.
 *
 * @example const result = await serveCompletion(deps, { grant, request })
 */
export const serveCompletion = async (
  deps: ServeCompletionDeps,
  { grant, request }: ServeCompletionParameters,
): Promise<ServeCompletionReturnType> => {
  const { meter, logger } = deps
  const { matchId } = grant
  const limitTokens = grant.mtok * TOKENS_PER_MTOK
  const refuse = (reason: CompletionRefusal, remainingTokens: number) =>
    ({ ok: false, reason, limitTokens, remainingTokens }) as const

  if (request.model !== grant.model)
    return refuse('model_mismatch', await meter.remaining(matchId, limitTokens))

  // Held across the upstream call: the next request of this match must see
  // this one's usage before it decides whether anything is left.
  return meter.exclusive(matchId, async () => {
    const remainingTokens = await meter.remaining(matchId, limitTokens)
    if (remainingTokens <= 0) return refuse('grant_spent', 0)
    const capped = capCompletionTokens(request, {
      remainingTokens,
      field: deps.completionTokensField,
    })
    if (!capped.ok) return refuse('too_many_choices', remainingTokens)

    const answer = await forwardCompletion(deps, { request: capped.request })
    if (!answer.ok) {
      logger.warn({ matchId, details: answer.details }, 'upstream unavailable')
      return refuse('upstream_unavailable', remainingTokens)
    }
    if (answer.totalTokens === undefined) {
      // An error the upstream did not bill passes through at no cost.
      if (answer.status >= 400)
        return { ok: true, status: answer.status, body: answer.body, limitTokens, remainingTokens }
      // Serving a completion we cannot count would let the grant run past
      // what was paid for; counting the whole allowance would punish the buyer
      // for the upstream's omission. Neither: refuse, the seller absorbs it.
      logger.error({ matchId, status: answer.status }, 'upstream reported no usage')
      return refuse('upstream_no_usage', remainingTokens)
    }

    await meter.record(matchId, answer.totalTokens)
    const left = await meter.remaining(matchId, limitTokens)
    if (answer.totalTokens > remainingTokens)
      logger.info({ matchId, overshoot: answer.totalTokens - remainingTokens }, 'grant overshoot')
    logger.info({ matchId, tokens: answer.totalTokens, remaining: left }, 'completion served')
    return {
      ok: true,
      status: answer.status,
      body: answer.body,
      limitTokens,
      remainingTokens: left,
    }
  })
}
