import { getAddress, isAddress } from 'viem'
import { z } from 'zod'
import { SaltRule } from '../salt/salt-rule.ts'
import { KnobTypeSchema } from './knob-type.ts'

// Pinned data is written in its EIP-55 form exactly: lowercase would skip the checksum's typo check.
const ChecksummedAddress = z
  .string()
  .refine(
    (value) => isAddress(value, { strict: false }) && getAddress(value) === value,
    'expected an EIP-55 address',
  )
const Bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected 32 bytes of hex')
const Scalar = z.union([z.string(), z.number(), z.boolean()])

/** An EVM chain id (number) or a CAIP-2 id for other chains (`solana:...`). */
export const ChainId = z.union([
  z.number().int().positive(),
  z.string().regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, 'expected a CAIP-2 chain id'),
])
export type ChainId = z.infer<typeof ChainId>

export const Knob = z.intersection(
  KnobTypeSchema,
  z.object({
    name: z.string().min(1),
    description: z.string().min(1),
    /** false: the pad accepts the name but ignores it (draft_intent warns `knob_ignored`). */
    used: z.boolean(),
    required: z.boolean().optional(),
    /** Chains where the pad's SDK drops this knob: draft_intent warns `knob_ignored` there. */
    unusedOnChains: z.array(ChainId).optional(),
  }),
)
export type Knob = z.infer<typeof Knob>

/** True when the intent carries `knob` with a value in `in` / outside `notIn`. */
export const Condition = z
  .object({ knob: z.string(), in: z.array(Scalar).optional(), notIn: z.array(Scalar).optional() })
  .strict()
export type Condition = z.infer<typeof Condition>

const ForbiddenField = z
  .object({
    field: z.string().min(1),
    reason: z.string().min(1),
    /** When set, the field may appear with exactly this value (e.g. simulateOnly: true). */
    allowedValue: Scalar.optional(),
  })
  .strict()

/** The pad-specific rules in code a pad can name (knob-checks.ts implements each). */
export const KNOB_CHECK_NAMES = [
  'doppler-dynamic-auction',
  'doppler-dynamic-liquidity',
  'doppler-beneficiaries',
  'doppler-multicurve-liquidity',
] as const
export type KnobCheckName = (typeof KNOB_CHECK_NAMES)[number]

const CrossKnobRule = z
  .object({
    when: Condition,
    require: z.object({ knob: z.string(), in: z.array(Scalar).min(1) }).strict(),
    message: z.string().min(1),
  })
  .strict()

/** Templates are JSON with `$intent`, `$knob`, `$stock` and `$pinned` references (see template.ts). */
const Template = z.unknown()

const SaltSettings = z
  .object({
    deployer: ChecksummedAddress,
    initCodeHash: Bytes32,
    rule: SaltRule,
    variants: z
      .array(
        z
          .object({ when: Condition, initCodeHash: Bytes32.optional(), rule: SaltRule.optional() })
          .strict(),
      )
      .optional(),
  })
  .strict()

const AbiFunction = z
  .object({
    type: z.literal('function'),
    name: z.string(),
    stateMutability: z.enum(['payable', 'nonpayable']),
    inputs: z.array(z.record(z.string(), z.unknown())),
    outputs: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .passthrough()

/** A path into `config`: dotted keys, `*` for every item of an array (`pool.curves.*.shares`). */
const ConfigPath = z
  .string()
  .regex(
    /^[A-Za-z_$][\w$]*(\.(\*|[A-Za-z_$][\w$]*))*$/,
    'expected a dotted path, * for array items',
  )

const SdkDeployPayload = z
  .object({
    sdk: z.object({ package: z.string(), version: z.string(), call: z.string() }).strict(),
    /** Fields the SDK types as `bigint`: JSON integers or decimal strings, converted with BigInt(value). */
    bigints: z.array(ConfigPath).optional(),
    /** Fields the SDK types as a Solana `PublicKey`: base58 strings, converted with new PublicKey(value). */
    publicKeys: z.array(ConfigPath).optional(),
    config: Template,
  })
  .strict()

const SimulateApiPayload = z
  .object({
    request: z
      .object({
        method: z.literal('POST'),
        url: z.string().url().startsWith('https://'),
        headers: z.record(z.string(), z.string()),
        body: Template,
      })
      .strict(),
  })
  .strict()

const PartyFactoryPayload = z
  .object({
    to: ChecksummedAddress.optional(),
    abi: z.array(AbiFunction).length(1),
    args: z.array(Template),
    value: Template,
    /** Required once the pad is wired; an unproven pad may not know them yet. */
    salt: SaltSettings.optional(),
    /** Constants the payload needs that a stateless router cannot read on-chain. */
    pinned: z.record(z.string(), Scalar).optional(),
  })
  .strict()

const base = {
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{1,40}$/, 'lowercase id'),
  name: z.string().min(1),
  chains: z.array(ChainId).min(1),
  status: z.enum(['wired', 'unproven']),
  notes: z.string().min(1),
  sources: z.array(z.string().min(1)).min(1),
  knobs: z.array(Knob),
  forbidden: z.array(ForbiddenField),
  rules: z.array(CrossKnobRule).optional(),
  /** Pad-specific arithmetic rules in code (knob-checks.ts), run by draft_intent. */
  checks: z.array(z.enum(KNOB_CHECK_NAMES)).optional(),
  limits: z
    .object({
      nameMaxLength: z.number().int().min(1).optional(),
      /** The name's UTF-8 bytes, for a program that counts bytes (pump.fun's NameTooLong). */
      nameMaxBytes: z.number().int().min(1).optional(),
      symbolMaxLength: z.number().int().min(1).optional(),
    })
    .strict()
    .optional(),
  /** Only the stock-pairing pad: RH_STOCK tickers and the token each one pins. */
  stockAllowlist: z.record(z.string().regex(/^[A-Z.]{1,10}$/), ChecksummedAddress).optional(),
  /**
   * A payload that holds a time (a start time, a deadline) is good for this many seconds
   * from the answer: templates read `{ "$time": "now" | "validFor" | "validUntil" }`, and
   * get_sign_payload answers `validUntil` (unix seconds). `rule` is the contract's rule it meets.
   */
  validFor: z
    .object({ seconds: z.number().int().min(60).max(86400), rule: z.string().min(1) })
    .strict()
    .optional(),
  /** Doppler pads: the Airlock's owner per chain id, a required fee beneficiary (BeneficiaryData.sol). */
  airlockOwners: z
    .record(
      z.string(),
      z.object({ address: ChecksummedAddress, source: z.string().min(1) }).strict(),
    )
    .optional(),
}

export const Pad = z.discriminatedUnion('kind', [
  z.object({ ...base, kind: z.literal('sdk-deploy'), payload: SdkDeployPayload }).strict(),
  z.object({ ...base, kind: z.literal('simulate-api'), payload: SimulateApiPayload }).strict(),
  z.object({ ...base, kind: z.literal('party-factory'), payload: PartyFactoryPayload }).strict(),
])
export type Pad = z.infer<typeof Pad>
export type PadKind = Pad['kind']
export type SaltSettings = z.infer<typeof SaltSettings>
