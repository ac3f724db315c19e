import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { z } from 'zod'
import { knobTypeToZod } from './knob-type.ts'
import { type Knob, Pad } from './pad.ts'
import { templateReferences } from './template.ts'

/** The field that pairs a launch with a Robinhood stock token. */
export const STOCK_FIELD = 'RH_STOCK'

export const defaultPadsDirectory = fileURLToPath(new URL('../../pads', import.meta.url))

export type Matrix = {
  pads: readonly Pad[]
  byId: ReadonlyMap<string, Pad>
  /** Compiled knob validators, by pad id then knob name. */
  knobValidators: ReadonlyMap<string, ReadonlyMap<string, { knob: Knob; schema: z.ZodType }>>
  stockPad: Pad
}

export class MatrixError extends Error {
  override readonly name = 'MatrixError'
  readonly problems: string[]
  constructor(problems: string[]) {
    super(`invalid pad matrix:\n  ${problems.join('\n  ')}`)
    this.problems = problems
  }
}

/** Reads every `*.json` pad file in a directory, sorted by file name. */
export const readPadFiles = (directory: string): unknown[] =>
  readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      try {
        return JSON.parse(readFileSync(join(directory, file), 'utf8'))
      } catch (error) {
        throw new MatrixError([`${file}: ${(error as Error).message}`])
      }
    })

/**
 * Validates pad data and builds the matrix the router serves. Every problem
 * in every pad is reported in one error, so a bad pad file fails start-up
 * with the whole list.
 */
export const loadMatrix = (data: unknown[]): Matrix => {
  const problems: string[] = []
  const pads: Pad[] = []
  data.forEach((entry, position) => {
    const parsed = Pad.safeParse(entry)
    const label = (entry as { id?: unknown })?.id ?? `#${position}`
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push(`pad ${label}: ${issue.path.join('.')}: ${issue.message}`)
      return
    }
    problems.push(...checkPad(parsed.data))
    pads.push(parsed.data)
  })

  const ids = pads.map((pad) => pad.id)
  for (const id of new Set(ids)) {
    if (ids.filter((other) => other === id).length > 1) problems.push(`pad ${id}: duplicate id`)
  }
  const stockPads = pads.filter((pad) => pad.stockAllowlist)
  if (stockPads.length !== 1) {
    problems.push(
      `exactly one pad must be the stock-pairing pad (with stockAllowlist); found ${stockPads.length}`,
    )
  }
  if (problems.length > 0) throw new MatrixError(problems)

  return {
    pads,
    byId: new Map(pads.map((pad) => [pad.id, pad])),
    knobValidators: new Map(
      pads.map((pad) => [
        pad.id,
        new Map(pad.knobs.map((knob) => [knob.name, { knob, schema: knobTypeToZod(knob) }])),
      ]),
    ),
    stockPad: stockPads[0]!,
  }
}

/** Whether a config template can hold a value at `path`; past a reference (`$knob`, `$intent`) it can. */
const templateHasPath = (template: unknown, [head, ...rest]: string[]): boolean => {
  if (head === undefined) return true
  if (typeof template !== 'object' || template === null) return false
  if (Object.keys(template).some((key) => key.startsWith('$'))) return true
  if (head === '*')
    return Array.isArray(template) && template.every((item) => templateHasPath(item, rest))
  return head in template && templateHasPath((template as Record<string, unknown>)[head], rest)
}

/** Cross-field checks a schema cannot express. */
const checkPad = (pad: Pad): string[] => {
  const problems: string[] = []
  const say = (message: string) => problems.push(`pad ${pad.id}: ${message}`)
  const knobNames = new Set(pad.knobs.map((knob) => knob.name))
  if (knobNames.size !== pad.knobs.length) say('knob names must be unique')
  if (knobNames.has('salt') || [...knobNames].some((name) => name.toLowerCase() === 'salt')) {
    say('a salt is never a knob: the router mines it')
  }

  const forbidsStock = pad.forbidden.some((entry) => entry.field === STOCK_FIELD)
  if (pad.stockAllowlist) {
    if (forbidsStock) say(`the stock pad cannot forbid ${STOCK_FIELD}`)
    if (!knobNames.has(STOCK_FIELD)) say(`the stock pad must declare the ${STOCK_FIELD} knob`)
  } else {
    if (!forbidsStock) say(`every pad but the stock pad must forbid ${STOCK_FIELD}`)
    if (knobNames.has(STOCK_FIELD)) say(`only the stock pad may declare ${STOCK_FIELD}`)
  }
  for (const entry of pad.forbidden) {
    if (knobNames.has(entry.field) && entry.allowedValue === undefined)
      say(`${entry.field} is both a knob and forbidden`)
  }

  for (const reference of templateReferences(pad.payload)) {
    if (
      (reference.kind === 'knob' || reference.kind === 'knobItem') &&
      !knobNames.has(reference.name)
    )
      say(`payload refers to unknown knob ${reference.name}`)
    if (
      reference.kind === 'pinned' &&
      !(pad.kind === 'party-factory' && pad.payload.pinned?.[reference.name] !== undefined)
    ) {
      say(`payload refers to unknown pinned constant ${reference.name}`)
    }
    if (reference.kind === 'stock' && !pad.stockAllowlist)
      say('only the stock pad may refer to $stock')
    if (reference.kind === 'time' && !pad.validFor)
      say('a payload that refers to $time needs validFor')
  }
  if (pad.checks?.includes('doppler-beneficiaries'))
    for (const chain of pad.chains)
      if (!pad.airlockOwners?.[String(chain)])
        say(`doppler-beneficiaries needs the Airlock owner of chain ${chain} in airlockOwners`)
  for (const rule of pad.rules ?? []) {
    for (const name of [rule.when.knob, rule.require.knob]) {
      if (!knobNames.has(name)) say(`rule refers to unknown knob ${name}`)
    }
  }

  if (pad.kind === 'sdk-deploy') {
    const { bigints = [], publicKeys = [] } = pad.payload
    for (const path of [...bigints, ...publicKeys])
      if (!templateHasPath(pad.payload.config, path.split('.')))
        say(`payload marks ${path}, which its config does not have`)
  }

  if (pad.kind === 'party-factory') {
    const [fragment] = pad.payload.abi
    if (fragment && fragment.inputs.length !== pad.payload.args.length) {
      say(
        `args has ${pad.payload.args.length} entries but ${fragment.name} takes ${fragment.inputs.length}`,
      )
    }
    if (pad.status === 'wired' && !pad.payload.salt)
      say('a wired factory pad needs its salt settings')
    if (pad.status === 'wired' && !pad.payload.to)
      say('a wired factory pad needs its factory address')
    for (const variant of pad.payload.salt?.variants ?? []) {
      if (!knobNames.has(variant.when.knob))
        say(`salt variant refers to unknown knob ${variant.when.knob}`)
    }
  }
  return problems
}
