import { z } from '@hono/zod-openapi'

// Request bodies: exactly as the spec says, no other properties.
export const EmptyBody = z
  .object({})
  .strict()
  .openapi('EmptyBody', { description: 'an empty object; no properties allowed' })
export const PadBody = z
  .object({
    pad: z
      .string()
      .min(1)
      .max(64)
      .openapi({ example: 'flap', description: 'pad id from list_pads' }),
  })
  .strict()
  .openapi('PadBody')

/**
 * Any JSON object: field problems are the draft's to report (200 with
 * errors), not the envelope's (400). The documented properties are the
 * intent's required fields; any other property is a knob.
 */
export const LaunchIntent = z.record(z.string(), z.unknown()).openapi('LaunchIntent', {
  description:
    'name, symbol, chainId, pad and creator, plus the optional knobs get_capabilities reports for the pad (top-level properties). Never a salt.',
  required: ['name', 'symbol', 'chainId', 'pad', 'creator'],
  properties: {
    name: {
      type: 'string',
      description: 'token name, 1 to the pad limit (default 64) printable characters',
    },
    symbol: {
      type: 'string',
      description: 'token symbol, ASCII letters and digits, 1 to the pad limit (default 16)',
    },
    chainId: {
      oneOf: [{ type: 'integer' }, { type: 'string' }],
      description: 'a chain the pad lists: 8453, "8453", "eip155:8453" or a CAIP-2 id',
    },
    pad: { type: 'string', description: 'pad id from list_pads' },
    creator: {
      type: 'string',
      description:
        'EVM chains: 0x + 40 hex, mixed case must pass the EIP-55 checksum; solana:* chains: a base58 ed25519 wallet public key (32 bytes, on the curve)',
    },
  },
  example: {
    name: 'Example',
    symbol: 'EXM',
    chainId: 56,
    pad: 'flap',
    creator: '0x00000000000000000000000000000000000000A1',
  },
})
export const IntentBody = z.object({ intent: LaunchIntent }).strict().openapi('IntentBody')

// Responses.
const ChainIdSchema = z.union([z.number().int(), z.string()]).openapi('ChainId')
export const IntentIssue = z
  .object({ code: z.string(), field: z.string(), message: z.string() })
  .openapi('IntentIssue', {
    description:
      'code is stable (pad_unknown, salt_forbidden, knob_ignored, ...); field is a dotted path in the intent',
  })

export const PadSummary = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(['sdk-deploy', 'simulate-api', 'party-factory']),
    chains: z.array(ChainIdSchema),
    status: z.enum(['wired', 'unproven']),
    notes: z.string(),
  })
  .openapi('PadSummary')
export const ListPadsResponse = z.object({ pads: z.array(PadSummary) }).openapi('ListPadsResponse')
export const ListNetworksResponse = z
  .object({
    chains: z.array(ChainIdSchema),
    networks: z.array(z.object({ chainId: ChainIdSchema, pads: z.array(z.string()) })),
  })
  .openapi('ListNetworksResponse')
export const CapabilitiesResponse = z
  .object({
    pad: z.string(),
    name: z.string(),
    kind: z.string(),
    status: z.enum(['wired', 'unproven']),
    chains: z.array(ChainIdSchema),
    notes: z.string(),
    sources: z.array(z.string()),
    knobs: z.array(z.record(z.string(), z.unknown())).openapi({
      description:
        'name, type and constraints, description, used (false: accepted but ignored), required',
    }),
    forbidden: z.array(
      z.object({ field: z.string(), reason: z.string(), allowedValue: z.unknown().optional() }),
    ),
    rules: z.array(z.record(z.string(), z.unknown())),
    limits: z.object({
      nameMaxLength: z.number().int(),
      nameMaxBytes: z.number().int().optional(),
      symbolMaxLength: z.number().int(),
    }),
    stockAllowlist: z.record(z.string(), z.string()).optional(),
    salt: z.record(z.string(), z.unknown()).optional(),
    validFor: z.object({ seconds: z.number().int(), rule: z.string() }).optional().openapi({
      description:
        'the payload holds a time: get_sign_payload answers validUntil, this many seconds after the answer; rule is the contract rule it meets',
    }),
    airlockOwners: z
      .record(z.string(), z.object({ address: z.string(), source: z.string() }))
      .optional()
      .openapi({
        description:
          'Doppler: the Airlock owner per chain id, who must be a fee beneficiary with at least 5 % when beneficiaries are given',
      }),
  })
  .openapi('CapabilitiesResponse')
export const DraftResponse = z
  .object({
    ok: z.boolean(),
    errors: z.array(IntentIssue),
    warnings: z.array(IntentIssue),
    // A union, not LaunchIntent.nullable(): that keeps the name LaunchIntent, and the generator
    // then documented the request's intent as nullable too (componentNameClashes).
    intent: z.union([LaunchIntent, z.null()]).openapi({
      description: 'the normalised intent; null when a core field is unreadable',
    }),
  })
  .openapi('DraftResponse')
export const SignPayloadResponse = z
  .object({
    payload: z.record(z.string(), z.unknown()).openapi({
      description:
        'per kind: sdk-deploy {sdk, config}; simulate-api {request} with body.simulateOnly true; party-factory {to, functionName, args, data, value, salt}',
    }),
    warnings: z.array(IntentIssue),
    validUntil: z.number().int().optional().openapi({
      description:
        "unix seconds (the chain's block.timestamp): present when the payload holds a time (a start time or deadline); a transaction included in a later block reverts, so ask again after it. get_capabilities gives the pad's validFor (seconds and the contract rule)",
    }),
  })
  .openapi('SignPayloadResponse')

export const ErrorResponse = z
  .object({ error: z.string(), issues: z.array(z.record(z.string(), z.unknown())).optional() })
  .openapi('ErrorResponse')
export const ProblemResponse = z
  .object({
    error: z.string(),
    errors: z.array(IntentIssue),
    warnings: z.array(IntentIssue).optional(),
  })
  .openapi('ProblemResponse')
