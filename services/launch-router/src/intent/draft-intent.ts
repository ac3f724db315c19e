import type { z } from 'zod'
import { conditionHolds } from '../matrix/condition.ts'
import { KNOB_CHECKS } from '../matrix/knob-checks.ts'
import { type Matrix, STOCK_FIELD } from '../matrix/load-matrix.ts'
import type { ChainId, Pad } from '../matrix/pad.ts'
import { checkCreator } from './check-creator.ts'
import { findSaltFields } from './find-salt-fields.ts'
import { IntentCode, type IntentIssue } from './intent-issue.ts'
import { normalizeChainId } from './normalize-chain-id.ts'

const CORE_FIELDS = new Set(['name', 'symbol', 'chainId', 'pad', 'creator'])
const DEFAULT_NAME_MAX = 64
const DEFAULT_SYMBOL_MAX = 16
// Printable text only: no control characters, no bidi overrides that could disguise a name in a wallet.
const UNSAFE_TEXT = /[\p{Cc}\p{Cf}\u2028\u2029]/u
const UTF8 = new TextEncoder()

/** The intent as the router will build it: core fields normalised, only usable knobs kept. */
export type NormalizedIntent = {
  pad: string
  chainId: ChainId
  name: string
  symbol: string
  /** EVM: the EIP-55 address; Solana: the base58 public key. */
  creator: string
  knobs: Record<string, unknown>
}

export type DraftIntentResult = {
  ok: boolean
  errors: IntentIssue[]
  warnings: IntentIssue[]
  /** Present when every core field could be read, even if knobs failed. */
  intent: NormalizedIntent | null
}

const issue = (code: IntentCode, field: string, message: string): IntentIssue => ({
  code,
  field,
  message,
})

const describe = (value: unknown) =>
  value === undefined ? 'missing' : `got ${JSON.stringify(value)?.slice(0, 40)}`

/**
 * Validates a launch intent against the pad matrix. Pure: takes data, returns
 * data. Errors make the intent unlaunchable; warnings (`knob_ignored`) do not.
 */
export const draftIntent = (matrix: Matrix, intent: Record<string, unknown>): DraftIntentResult => {
  const errors: IntentIssue[] = []
  const warnings: IntentIssue[] = []

  for (const field of findSaltFields(intent)) {
    errors.push(
      issue(
        IntentCode.saltForbidden,
        field,
        'an intent never carries a salt; the router mines one where the pad needs it',
      ),
    )
  }

  const pad = typeof intent.pad === 'string' ? matrix.byId.get(intent.pad) : undefined
  if (!pad) {
    errors.push(
      issue(
        IntentCode.padUnknown,
        'pad',
        `unknown pad (${describe(intent.pad)}); list_pads returns the pad ids`,
      ),
    )
  } else if (pad.status === 'unproven') {
    errors.push(
      issue(IntentCode.padUnproven, 'pad', `pad ${pad.id} is unproven and cannot be launched yet`),
    )
  }

  const name = checkText(
    intent.name,
    pad?.limits?.nameMaxLength ?? DEFAULT_NAME_MAX,
    pad?.limits?.nameMaxBytes,
  )
  if (!name.ok) errors.push(issue(IntentCode.nameInvalid, 'name', `name ${name.problem}`))
  const symbol = checkSymbol(intent.symbol, pad?.limits?.symbolMaxLength ?? DEFAULT_SYMBOL_MAX)
  if (!symbol.ok) errors.push(issue(IntentCode.symbolInvalid, 'symbol', `symbol ${symbol.problem}`))
  const chainId = normalizeChainId(intent.chainId)
  const creator = checkCreator(intent.creator, chainId)
  if (!creator.ok) errors.push(issue(IntentCode.creatorInvalid, 'creator', creator.problem))

  if (chainId === undefined) {
    errors.push(
      issue(
        IntentCode.chainInvalid,
        'chainId',
        `chainId must be a chain id such as 8453 or a CAIP-2 id (${describe(intent.chainId)})`,
      ),
    )
  } else if (pad && !pad.chains.includes(chainId)) {
    errors.push(
      issue(
        IntentCode.chainNotListed,
        'chainId',
        `pad ${pad.id} does not list chain ${chainId}; it lists ${pad.chains.join(', ')}`,
      ),
    )
  }

  const knobs = pad ? checkKnobs(matrix, pad, intent, chainId, errors, warnings) : {}

  const complete = name.ok && symbol.ok && creator.ok && chainId !== undefined && pad !== undefined
  return {
    ok: errors.length === 0,
    errors,
    warnings,
    intent: complete
      ? {
          pad: pad.id,
          chainId,
          name: name.value,
          symbol: symbol.value,
          creator: creator.value,
          knobs,
        }
      : null,
  }
}

type Checked<value> = { ok: true; value: value } | { ok: false; problem: string }

const checkText = (value: unknown, maxLength: number, maxBytes?: number): Checked<string> => {
  if (typeof value !== 'string')
    return { ok: false, problem: `must be a string (${describe(value)})` }
  const trimmed = value.trim()
  if (trimmed.length === 0) return { ok: false, problem: 'must not be empty' }
  if ([...trimmed].length > maxLength)
    return { ok: false, problem: `must be at most ${maxLength} characters` }
  // A program that counts bytes (pump.fun's NameTooLong) fails on a shorter name of wide characters.
  if (maxBytes !== undefined && UTF8.encode(trimmed).length > maxBytes)
    return { ok: false, problem: `must be at most ${maxBytes} bytes in UTF-8` }
  if (UNSAFE_TEXT.test(trimmed))
    return { ok: false, problem: 'must not contain control or invisible formatting characters' }
  return { ok: true, value: trimmed }
}

const checkSymbol = (value: unknown, maxLength: number): Checked<string> => {
  const text = checkText(value, maxLength)
  if (!text.ok) return text
  if (!/^[A-Za-z0-9]+$/.test(text.value))
    return { ok: false, problem: 'must be ASCII letters and digits only' }
  return text
}

/** Classifies every non-core field: stock pair, forbidden, knob (valid or not), ignored. */
const checkKnobs = (
  matrix: Matrix,
  pad: Pad,
  intent: Record<string, unknown>,
  chainId: ChainId | undefined,
  errors: IntentIssue[],
  warnings: IntentIssue[],
): Record<string, unknown> => {
  const validators = matrix.knobValidators.get(pad.id)!
  const knobs: Record<string, unknown> = {}

  for (const [field, value] of Object.entries(intent)) {
    if (CORE_FIELDS.has(field) || field.toLowerCase() === 'salt') continue
    if (field.toUpperCase() === STOCK_FIELD) {
      if (pad.id !== matrix.stockPad.id) {
        errors.push(
          issue(
            IntentCode.forbiddenStockPair,
            field,
            `${STOCK_FIELD} is allowed only on the stock-pairing pad ${matrix.stockPad.id}`,
          ),
        )
        continue
      }
      const ticker = typeof value === 'string' ? value.toUpperCase() : undefined
      if (!ticker || !pad.stockAllowlist?.[ticker]) {
        errors.push(
          issue(
            IntentCode.stockUnknown,
            field,
            `${STOCK_FIELD} must be one of ${Object.keys(pad.stockAllowlist ?? {}).join(', ')} (${describe(value)})`,
          ),
        )
        continue
      }
      knobs[STOCK_FIELD] = ticker
      continue
    }
    const forbidden = pad.forbidden.find((entry) => entry.field === field)
    if (forbidden) {
      if (forbidden.allowedValue === undefined || forbidden.allowedValue !== value) {
        const allowed =
          forbidden.allowedValue === undefined
            ? ''
            : ` (only ${JSON.stringify(forbidden.allowedValue)} is accepted)`
        errors.push(
          issue(
            IntentCode.forbiddenField,
            field,
            `${field} is forbidden on ${pad.id}: ${forbidden.reason}${allowed}`,
          ),
        )
      }
      continue
    }
    const validator = validators.get(field)
    if (!validator) {
      warnings.push(
        issue(IntentCode.knobIgnored, field, `pad ${pad.id} does not know ${field}; it is ignored`),
      )
      continue
    }
    if (!validator.knob.used) {
      warnings.push(
        issue(
          IntentCode.knobIgnored,
          field,
          `pad ${pad.id} ignores ${field}: ${validator.knob.description}`,
        ),
      )
      continue
    }
    if (chainId !== undefined && validator.knob.unusedOnChains?.includes(chainId)) {
      warnings.push(
        issue(
          IntentCode.knobIgnored,
          field,
          `pad ${pad.id} ignores ${field} on chain ${chainId}: its SDK drops it there`,
        ),
      )
      continue
    }
    const parsed = validator.schema.safeParse(value)
    if (parsed.success) knobs[field] = parsed.data
    else errors.push(...knobIssues(field, parsed.error))
  }

  for (const knob of pad.knobs) {
    if (knob.required && knob.used && !(knob.name in intent)) {
      errors.push(
        issue(
          IntentCode.knobInvalid,
          knob.name,
          `${knob.name} is required by ${pad.id}: ${knob.description}`,
        ),
      )
    }
  }
  for (const rule of pad.rules ?? []) {
    if (!conditionHolds(rule.when, knobs)) continue
    const value = rule.require.knob in knobs ? knobs[rule.require.knob] : undefined
    if (!rule.require.in.some((allowed) => allowed === value)) {
      errors.push(issue(IntentCode.knobInvalid, rule.require.knob, rule.message))
    }
  }
  // Arithmetic across knobs runs on knobs that each passed their own rules.
  if (!errors.some((error) => error.code === IntentCode.knobInvalid)) {
    for (const name of pad.checks ?? [])
      for (const problem of KNOB_CHECKS[name](pad, knobs, { chainId }))
        errors.push(issue(IntentCode.knobInvalid, problem.field, problem.message))
  }
  return knobs
}

const knobIssues = (field: string, error: z.ZodError): IntentIssue[] =>
  error.issues
    .slice(0, 5)
    .map((zodIssue) =>
      issue(
        IntentCode.knobInvalid,
        [field, ...zodIssue.path.map(String)].join('.'),
        `${field}: ${zodIssue.message}`,
      ),
    )
