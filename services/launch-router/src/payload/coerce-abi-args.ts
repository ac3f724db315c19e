import type { AbiParameter } from 'viem'

/**
 * Pad templates carry integers as JSON numbers or decimal strings; viem wants
 * bigints for (u)intN. Walks the ABI and converts, and back for the wire.
 */
export const coerceAbiValue = (parameter: AbiParameter, value: unknown): unknown => {
  const arrayMatch = /^(.*)\[\d*\]$/.exec(parameter.type)
  if (arrayMatch) {
    return (value as unknown[]).map((item) =>
      coerceAbiValue({ ...parameter, type: arrayMatch[1]! }, item),
    )
  }
  if (parameter.type === 'tuple') {
    const components = (parameter as { components: readonly AbiParameter[] }).components
    return Object.fromEntries(
      components.map((component) => [
        component.name!,
        coerceAbiValue(component, (value as Record<string, unknown>)[component.name!]),
      ]),
    )
  }
  if (/^u?int\d*$/.test(parameter.type)) return BigInt(value as string | number)
  return value
}

/** bigints as decimal strings, so args travel in JSON. */
export const toJsonSafe = (value: unknown): unknown => {
  if (typeof value === 'bigint') return value.toString()
  if (Array.isArray(value)) return value.map(toJsonSafe)
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toJsonSafe(item)]))
  }
  return value
}
