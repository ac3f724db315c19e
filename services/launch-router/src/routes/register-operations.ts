import { type App, type AppEnv, answerOf, jsonRoute, type Refusal } from '@agents/service-kit'
import type { Context } from 'hono'
import type { OperationDeps } from '../hot-path/answer-operation.ts'
import { chargeMining } from '../limits/charge-mining.ts'
import { draft } from '../operations/draft.ts'
import { getCapabilities } from '../operations/get-capabilities.ts'
import { getSignPayload } from '../operations/get-sign-payload.ts'
import {
  CapabilitiesResponse,
  DraftResponse,
  EmptyBody,
  ErrorResponse,
  IntentBody,
  ListNetworksResponse,
  ListPadsResponse,
  PadBody,
  SignPayloadResponse,
} from '../schemas.ts'
import { jsonResponse, operationRoute } from './operation-route.ts'

/** The request's share of its client's mining budget, when the app limits requests. */
const miningOf = (c: Context<AppEnv>) => {
  const takeLimit = c.get('takeLimit')
  const client = c.get('client')
  return takeLimit && client ? chargeMining({ takeLimit, client }) : undefined
}

/** Answers an outcome now, or when its promise settles (only factory pads mine asynchronously). */
const respond = <value>(c: Context, outcome: value | Refusal | Promise<value | Refusal>) =>
  outcome instanceof Promise
    ? outcome.then((settled) => c.json(answerOf(settled) as object, 200))
    : c.json(answerOf(outcome) as object, 200)

// The request limit's 429 is documented on every operation from its declared `limit`; this is the other one.
const mining =
  'A newly mined salt (factory pads) also draws on the client’s `mining` budget, in worker-milliseconds; once it is spent, a new salt is answered 429 with `limit: "mining"` and `Retry-After`, while a salt already mined for the same intent is still served.'

const mines = {
  429: jsonResponse(
    ErrorResponse,
    'the client’s `mining` budget is spent and this intent’s salt would be newly mined (`limit: "mining"`)',
  ),
  503: jsonResponse(ErrorResponse, 'salt mining ran out of its time budget (server busy); retry'),
}

/** The six operations. Routes only translate; the operations are plain functions. */
export const registerOperations = (app: App, deps: OperationDeps) => {
  const { matrix, answers } = deps
  // The matrix never changes while the process runs: its answers are serialised once.
  const jsonHeaders = { 'content-type': 'application/json' }

  jsonRoute(
    app,
    operationRoute({
      operation: 'list_pads',
      summary: 'every pad, wired and unproven; call first',
      body: EmptyBody,
      response: ListPadsResponse,
    }),
    (c) => c.body(answers.listPads.json, 200, jsonHeaders),
  )
  jsonRoute(
    app,
    operationRoute({
      operation: 'list_networks',
      summary: 'the union of the chains the pads list',
      body: EmptyBody,
      response: ListNetworksResponse,
    }),
    (c) => c.body(answers.listNetworks.json, 200, jsonHeaders),
  )
  jsonRoute(
    app,
    operationRoute({
      operation: 'get_capabilities',
      summary: "a pad's knobs, forbidden fields, chains and status",
      body: PadBody,
      response: CapabilitiesResponse,
    }),
    (c, body) => {
      const answer = answers.capabilities.get(body.pad)
      // An unknown pad: getCapabilities says why (422).
      return answer
        ? c.body(answer.json, 200, jsonHeaders)
        : c.json(answerOf(getCapabilities(matrix, body)), 200)
    },
  )
  jsonRoute(
    app,
    operationRoute({
      operation: 'draft_intent',
      summary: 'validate an intent: errors, warnings and the normalised intent',
      body: IntentBody,
      response: DraftResponse,
    }),
    (c, body) => c.json(draft(matrix, body), 200),
  )
  jsonRoute(
    app,
    operationRoute({
      operation: 'simulate_launch',
      summary:
        'the sign payload, identical to get_sign_payload; nothing is broadcast, no key is used',
      description: mining,
      body: IntentBody,
      response: SignPayloadResponse,
      extraResponses: mines,
    }),
    (c, body) => respond(c, getSignPayload(deps, { ...body, chargeMining: miningOf(c) })),
  )
  jsonRoute(
    app,
    operationRoute({
      operation: 'get_sign_payload',
      summary: "the payload for the user's own wallet to sign",
      description: mining,
      body: IntentBody,
      response: SignPayloadResponse,
      extraResponses: mines,
    }),
    (c, body) => respond(c, getSignPayload(deps, { ...body, chargeMining: miningOf(c) })),
  )
}
