import type { SafetyCheck, SafetyContext, SafetyVerdict } from './types.ts'

/**
 * The verdict of each text, in order, each distinct text checked once: in
 * one batch through the check's `many` when it has one (moderation calls in
 * chunks), else one by one through the check itself (a plain function, as
 * tests pass). A single text goes through the single check either way.
 *
 * @example
 * const [first, second] = await checkMany(deps.safety, [introA, introB], { kind: 'intro' })
 */
export const checkMany = async (
  safety: SafetyCheck,
  texts: readonly string[],
  context?: SafetyContext,
): Promise<SafetyVerdict[]> => {
  const unique = [...new Set(texts)]
  const verdicts =
    safety.many && unique.length > 1
      ? await safety.many(unique, context)
      : await Promise.all(unique.map((text) => safety(text, context)))
  const verdictOf = new Map(unique.map((text, index) => [text, verdicts[index]!]))
  return texts.map((text) => verdictOf.get(text)!)
}
