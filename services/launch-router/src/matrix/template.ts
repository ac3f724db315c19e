/**
 * Pad payloads are JSON templates. A template is any JSON value in which an
 * object with one of these keys is a reference:
 *
 *   { "$intent": "name" | "symbol" | "chainId" | "creator" | "pad" }
 *   { "$knob": "<knob>", "default": <template> }   absent, no default: key omitted
 *   { "$stock": "ticker" | "address" }            the resolved RH_STOCK pair
 *   { "$pinned": "<name>" }                       a constant pinned in the pad
 *   { "$salt": "value" }                          the mined salt (factory pads)
 */
export type TemplateContext = {
  intent: Record<string, unknown>
  knobs: Record<string, unknown>
  stock?: { ticker: string; address: string }
  pinned?: Record<string, unknown>
  salt?: string
}

export type TemplateReference = {
  kind: 'intent' | 'knob' | 'stock' | 'pinned' | 'salt'
  name: string
}

const OMIT = Symbol('omit')
const REFERENCE_KEYS = ['$intent', '$knob', '$stock', '$pinned', '$salt'] as const

const referenceOf = (value: unknown): TemplateReference | undefined => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  for (const key of REFERENCE_KEYS) {
    const name = (value as Record<string, unknown>)[key]
    if (typeof name === 'string') return { kind: key.slice(1) as TemplateReference['kind'], name }
  }
  return undefined
}

const resolve = (template: unknown, context: TemplateContext): unknown => {
  const reference = referenceOf(template)
  if (reference) {
    switch (reference.kind) {
      case 'intent':
        return context.intent[reference.name]
      case 'knob': {
        if (reference.name in context.knobs) return context.knobs[reference.name]
        const fallback = (template as { default?: unknown }).default
        return fallback === undefined ? OMIT : resolve(fallback, context)
      }
      case 'stock':
        return context.stock ? context.stock[reference.name as 'ticker' | 'address'] : OMIT
      case 'pinned':
        return context.pinned?.[reference.name] ?? OMIT
      case 'salt':
        return context.salt ?? OMIT
      default:
        throw new Error(`unknown template reference ${reference.kind}`)
    }
  }
  if (Array.isArray(template)) {
    return template.map((item) => {
      const value = resolve(item, context)
      return value === OMIT ? null : value
    })
  }
  if (typeof template === 'object' && template !== null) {
    const entries = Object.entries(template).map(
      ([key, item]) => [key, resolve(item, context)] as const,
    )
    return Object.fromEntries(entries.filter(([, value]) => value !== OMIT))
  }
  return template
}

/** Fills a payload template from an intent; absent optional knobs drop their keys. */
export const resolveTemplate = (template: unknown, context: TemplateContext): unknown => {
  const value = resolve(template, context)
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
