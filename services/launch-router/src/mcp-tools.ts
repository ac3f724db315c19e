import { defineMcpTool, type McpCallContext, type McpTool } from '@agents/service-kit'
import type { OperationDeps } from './hot-path/answer-operation.ts'
import { chargeMining } from './limits/charge-mining.ts'
import type { RouterLimitName } from './limits/limit-defaults.ts'
import { draft } from './operations/draft.ts'
import { getCapabilities } from './operations/get-capabilities.ts'
import { getSignPayload } from './operations/get-sign-payload.ts'
import { EmptyBody, IntentBody, PadBody } from './schemas.ts'

// Every operation only reads the matrix and computes: nothing changes, nothing leaves the host.
const readOnly = {
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: false,
  destructiveHint: false,
}

// Each tool counts as its HTTP route does (`limit` in routes/operation-route.ts).
const limit: RouterLimitName = 'read'

/** The call's share of its client's mining budget, when the app limits requests. */
const miningOf = ({ takeLimit, client }: McpCallContext) =>
  takeLimit && client ? chargeMining({ takeLimit, client }) : undefined

/** The six operations as MCP tools, calling the same functions as the HTTP routes. */
export const launchRouterTools = (deps: OperationDeps): McpTool[] => [
  defineMcpTool({
    name: 'list_pads',
    title: 'List launch pads',
    description:
      'Every launch pad (wired and unproven) with its chains and notes. Call this first.',
    inputSchema: EmptyBody,
    annotations: readOnly,
    limit,
    handler: () => deps.answers.listPads.value,
  }),
  defineMcpTool({
    name: 'list_networks',
    title: 'List networks',
    description: 'The union of the chain ids the pads list, and which pads serve each.',
    inputSchema: EmptyBody,
    annotations: readOnly,
    limit,
    handler: () => deps.answers.listNetworks.value,
  }),
  defineMcpTool({
    name: 'get_capabilities',
    title: 'Pad capabilities',
    description:
      "A pad's knobs (with constraints), forbidden fields, chains, status and salt rule.",
    inputSchema: PadBody,
    annotations: readOnly,
    limit,
    handler: (input) =>
      deps.answers.capabilities.get(input.pad)?.value ?? getCapabilities(deps.matrix, input),
  }),
  defineMcpTool({
    name: 'draft_intent',
    title: 'Draft a launch intent',
    description:
      'Validate a launch intent: errors (unlaunchable), warnings (ignored knobs) and the normalised intent.',
    inputSchema: IntentBody,
    annotations: readOnly,
    limit,
    handler: (input) => draft(deps.matrix, input),
  }),
  defineMcpTool({
    name: 'simulate_launch',
    title: 'Simulate a launch',
    description:
      'Build the sign payload without broadcasting anything; identical to get_sign_payload.',
    inputSchema: IntentBody,
    annotations: readOnly,
    limit,
    handler: (input, context) =>
      getSignPayload(deps, { ...input, chargeMining: miningOf(context) }),
  }),
  defineMcpTool({
    name: 'get_sign_payload',
    title: 'Get the sign payload',
    description:
      "The unsigned payload for the user's own wallet to sign. The router never signs or broadcasts.",
    inputSchema: IntentBody,
    annotations: readOnly,
    limit,
    handler: (input, context) =>
      getSignPayload(deps, { ...input, chargeMining: miningOf(context) }),
  }),
]
