import { type App, createApp, createLogger, errorBody, type Logger } from '@agents/service-kit'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { CompletionTokensField } from '../completion/cap-completion-tokens.ts'
import { ChatCompletionRequest } from '../completion/chat-completion-request.ts'
import type { CompletionRefusal } from '../completion/completion-refusal.ts'
import type { Upstream } from '../completion/upstream.ts'
import { TOKENS_REMAINING_HEADER } from '../constants.ts'
import type { GrantKeySource } from '../grant/verify-grant.ts'
import { createMemoryMeter } from '../meter/create-memory-meter.ts'
import type { GrantMeter } from '../meter/grant-meter.ts'
import { serveCompletionStream } from '../stream/serve-completion-stream.ts'
import { readJsonBody } from './read-json-body.ts'
import { requireGrant } from './require-grant.ts'
import { serveCompletion } from './serve-completion.ts'

export const SERVICE_NAME = 'swap-seller'
export const SERVICE_VERSION = '0.1.0'

export type CreateSellerProxyParameters = GrantKeySource & {
  /** The public base URL offered to the hub (`<origin>/v1`): every grant's audience. */
  endpoint: string
  upstream: Upstream & { completionTokensField?: CompletionTokensField }
  /** The hub's public base URL; when set, grants must carry it as `iss`. */
  issuer?: string
  clockToleranceSeconds?: number
  /** Defaults to an in-memory meter: one process only. */
  meter?: GrantMeter
  logger?: Logger
  /** Used for upstream calls (the hub's keys are fetched by jose). */
  fetch?: typeof fetch
  /** Chat bodies carry whole conversations and images, far over service-kit's 64 KiB default. */
  maxBodyBytes?: number
}

type Refusal = { status: ContentfulStatusCode; message: string; extras?: Record<string, unknown> }

const refusals: Record<CompletionRefusal, (limitTokens: number) => Refusal> = {
  model_mismatch: () => ({
    status: 403,
    message: 'model not covered by grant',
    extras: { detail: 'the request must name the model the grant was bought for' },
  }),
  prompt_too_large: () => ({
    status: 400,
    message: 'prompt is larger than the tokens remaining',
    extras: { detail: "the prompt's estimated tokens already use up what this match has left" },
  }),
  grant_spent: (limitTokens) => ({
    status: 403,
    message: 'grant spent',
    extras: {
      limitTokens,
      tokensRemaining: 0,
      detail:
        'this match has used every token it bought; create a new intent on the hub to buy more',
    },
  }),
  too_many_choices: () => ({ status: 400, message: 'n is larger than the tokens remaining' }),
  upstream_unavailable: () => ({ status: 502, message: 'upstream unavailable' }),
  upstream_no_usage: () => ({ status: 502, message: 'upstream reported no usage' }),
}

/**
 * The reference seller: an OpenAI-compatible `POST /v1/chat/completions`
 * that accepts hub grants as bearers, meters each match's tokens and forwards
 * to the seller's own upstream with the seller's key.
 *
 * @example
 * const app = createSellerProxy({
 *   hubJwksUrl: 'https://hub.example/.well-known/jwks.json',
 *   endpoint: 'https://seller.example/v1',
 *   upstream: { baseUrl: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY! },
 * })
 */
export const createSellerProxy = (parameters: CreateSellerProxyParameters): App => {
  const {
    endpoint,
    upstream,
    issuer,
    clockToleranceSeconds,
    meter = createMemoryMeter(),
    logger = createLogger({ name: SERVICE_NAME }),
    fetch: fetchImpl = globalThis.fetch,
    maxBodyBytes = 4 * 1024 * 1024,
  } = parameters
  const keys =
    'jwks' in parameters ? { jwks: parameters.jwks } : { hubJwksUrl: parameters.hubJwksUrl }
  const deps = {
    meter,
    logger,
    fetch: fetchImpl,
    upstream,
    completionTokensField: upstream.completionTokensField ?? 'max_completion_tokens',
  }

  const app = createApp({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    logger,
    maxBodyBytes,
    description:
      'Seller proxy for the inference swap rail: hub grants in, metered completions out.',
  })

  const grantCheck = requireGrant({
    ...keys,
    endpoint,
    logger,
    ...(issuer === undefined ? {} : { issuer }),
    ...(clockToleranceSeconds === undefined ? {} : { clockToleranceSeconds }),
  })

  app.post('/v1/chat/completions', grantCheck, async function chatCompletions(c) {
    const body = await readJsonBody(c, ChatCompletionRequest)
    if (!body.ok) return c.json(errorBody('invalid request', { issues: body.issues }), 400)
    const grant = c.var.grant
    const result =
      body.value.stream === true
        ? await serveCompletionStream(deps, { grant, request: body.value })
        : await serveCompletion(deps, { grant, request: body.value })
    // For a stream: what was left when it started (the stream's own count comes after).
    const headers = { [TOKENS_REMAINING_HEADER]: String(result.remainingTokens) }
    if (result.ok && 'stream' in result)
      return c.body(result.stream, 200, {
        ...headers,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      })
    if (result.ok)
      return c.json(result.body as object, result.status as ContentfulStatusCode, headers)
    const { status, message, extras = {} } = refusals[result.reason](result.limitTokens)
    const named = { ...extras, matchId: grant.matchId, grantModel: grant.model }
    return c.json(errorBody(message, named), status, headers)
  })

  return app
}
