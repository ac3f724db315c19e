/**
 * Pad payloads are JSON templates. A template is any JSON value in which an
 * object with one of these keys is a reference:
 *
 *   { "$intent": "name" | "symbol" | "chainId" | "creator" | "pad" }
 *   { "$knob": "<knob>", "default": <template> }   absent, no default: key omitted
 *   { "$knobItem": "<array knob>", "match": { "<field>": <value> }, "get": "<field>" }
 *                                                 one field of the first matching item, else omitted
 *   { "$stock": "ticker" | "address" }            the resolved RH_STOCK pair
 *   { "$pinned": "<name>" }                       a constant pinned in the pad
 *   { "$salt": "value" }                          the mined salt (factory pads)
 *   { "$time": "now" | "validFor" | "validUntil" } unix seconds of the answer, the pad's
 *                                                 validFor.seconds, and their sum
 *
 * A `$knob` of an array may add `"sortBy": "<field>"`: its items in ascending order of
 * that field (addresses compared as numbers, as a contract compares them).
 */
export type TemplateContext = {
  intent: Record<string, unknown>
  knobs: Record<string, unknown>
  stock?: { ticker: string; address: string }
  pinned?: Record<string, unknown>
  salt?: string
  time?: { now: number; validFor: number; validUntil: number }
}

export type TemplateReference = {
  kind: 'intent' | 'knob' | 'knobItem' | 'stock' | 'pinned' | 'salt' | 'time'
  name: string
}

const OMIT = Symbol('omit')
const REFERENCE_KEYS = [
  '$intent',
  '$knob',
  '$knobItem',
  '$stock',
  '$pinned',
  '$salt',
  '$time',
] as const

const sortKey = (value: unknown) => {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value)) return BigInt(value)
  return value as string | number
}

const sortedBy = (items: unknown, field: string) =>
  Array.isArray(items)
    ? [...items].sort((a, b) => {
        const left = sortKey((a as Record<string, unknown>)?.[field])
        const right = sortKey((b as Record<string, unknown>)?.[field])
        return left < right ? -1 : left > right ? 1 : 0
      })
    : items

const referenceOf = (value: unknown): TemplateReference | undefined => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  for (const key of REFERENCE_KEYS) {
    const name = (value as Record<string, unknown>)[key]
    if (typeof name === 'string') return { kind: key.slice(1) as TemplateReference['kind'], name }
  }
  return undefined
}

type Compiled = (context: TemplateContext) => unknown

/**
 * Turns a template into a closure once, so building a payload walks no JSON
 * and looks up no keys: the work per request is the references alone.
 */
const compile = (template: unknown): Compiled => {
  const reference = referenceOf(template)
  if (reference) {
    const { name } = reference
    switch (reference.kind) {
      case 'intent':
        return (context) => context.intent[name]
      case 'knob': {
        const { default: raw, sortBy } = template as { default?: unknown; sortBy?: string }
        const fallback = raw === undefined ? undefined : compile(raw)
        const pick = (context: TemplateContext) =>
          name in context.knobs ? context.knobs[name] : fallback ? fallback(context) : OMIT
        if (sortBy === undefined) return pick
        return (context) => {
          const value = pick(context)
          return value === OMIT ? OMIT : sortedBy(value, sortBy)
        }
      }
      case 'knobItem': {
        const { match = {}, get } = template as { match?: Record<string, unknown>; get: string }
        const wanted = Object.entries(match)
        return (context) => {
          const items = context.knobs[name]
          if (!Array.isArray(items)) return OMIT
          const item = items.find((candidate) =>
            wanted.every(([key, value]) => (candidate as Record<string, unknown>)[key] === value),
          ) as Record<string, unknown> | undefined
          return item && get in item ? item[get] : OMIT
        }
      }
      case 'stock':
        return (context) => (context.stock ? context.stock[name as 'ticker' | 'address'] : OMIT)
      case 'pinned':
        return (context) => context.pinned?.[name] ?? OMIT
      case 'salt':
        return (context) => context.salt ?? OMIT
      case 'time':
        return (context) => context.time?.[name as 'now' | 'validFor' | 'validUntil'] ?? OMIT
      default:
        throw new Error(`unknown template reference ${reference.kind}`)
    }
  }
  if (Array.isArray(template)) {
    const items = template.map(compile)
    return (context) =>
      items.map((item) => {
        const value = item(context)
        return value === OMIT ? null : value
      })
  }
  if (typeof template === 'object' && template !== null) {
    const entries = Object.entries(template).map(([key, item]) => [key, compile(item)] as const)
    return (context) => {
      const out: Record<string, unknown> = {}
      for (const [key, item] of entries) {
        const value = item(context)
        if (value !== OMIT) out[key] = value
      }
      return out
    }
  }
  return () => template
}

const compiled = new WeakMap<object, Compiled>()

/** Fills a payload template from an intent; absent optional knobs drop their keys. */
export const resolveTemplate = (template: unknown, context: TemplateContext): unknown => {
  let build: Compiled
  if (typeof template === 'object' && template !== null) {
    build = compiled.get(template) ?? compile(template)
    compiled.set(template, build)
  } else {
    build = compile(template)
  }
  const value = build(context)
  return value === OMIT ? undefined : value
}

/** Every reference a template makes, for start-up checks. */
export const templateReferences = (template: unknown): TemplateReference[] => {
  const reference = referenceOf(template)
  if (reference) {
    const fallback = (template as { default?: unknown }).default
    return [reference, ...(fallback === undefined ? [] : templateReferences(fallback))]
  }
  if (Array.isArray(template)) return template.flatMap(templateReferences)
  if (typeof template === 'object' && template !== null)
    return Object.values(template).flatMap(templateReferences)
  return []
}
