type Step = { value: unknown; key: string; isProperty: boolean; parent: Step | undefined }

const pathOf = (step: Step) => {
  const keys: string[] = []
  for (let at: Step | undefined = step; at?.parent; at = at.parent) keys.push(at.key)
  return keys.reverse().join('.')
}

/**
 * Paths of every property named "salt", in any letter case, at any depth of
 * a JSON value (arrays included), in document order. Spec rule 1: an intent
 * never carries a salt. A loop over an explicit stack, each step linked to
 * its parent (a path is spelled only for a salt found), not a recursion: the
 * value is the client's, and its depth must never decide whether the
 * process's stack holds (the app also refuses bodies nested deeper than 64).
 */
export const findSaltFields = (value: unknown): string[] => {
  const found: string[] = []
  const stack: Step[] = [{ value, key: '', isProperty: false, parent: undefined }]
  while (stack.length > 0) {
    const step = stack.pop()!
    if (step.isProperty && step.key.toLowerCase() === 'salt') found.push(pathOf(step))
    const current = step.value
    if (typeof current !== 'object' || current === null) continue
    const isArray = Array.isArray(current)
    const entries = isArray
      ? current.map((item, index) => [String(index), item] as const)
      : Object.entries(current)
    // Pushed last to first so that the first entry is walked first.
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, item] = entries[index]!
      stack.push({ value: item, key, isProperty: !isArray, parent: step })
    }
  }
  return found
}
