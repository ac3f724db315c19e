/**
 * Paths of every property named "salt", in any letter case, at any depth of
 * a JSON value (arrays included). Spec rule 1: an intent never carries a salt.
 */
export const findSaltFields = (value: unknown, path: string[] = []): string[] => {
  if (Array.isArray(value))
    return value.flatMap((item, index) => findSaltFields(item, [...path, String(index)]))
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).flatMap(([key, item]) => [
    ...(key.toLowerCase() === 'salt' ? [[...path, key].join('.')] : []),
    ...findSaltFields(item, [...path, key]),
  ])
}
