import { draftIntent } from '../intent/draft-intent.ts'
import type { Matrix } from '../matrix/load-matrix.ts'

/** draft_intent: the checks, with the normalised intent in the shape intents are written in. */
export const draft = (matrix: Matrix, { intent }: { intent: Record<string, unknown> }) => {
  const result = draftIntent(matrix, intent)
  const normalized = result.intent
  return {
    ok: result.ok,
    errors: result.errors,
    warnings: result.warnings,
    intent: normalized
      ? {
          pad: normalized.pad,
          chainId: normalized.chainId,
          name: normalized.name,
          symbol: normalized.symbol,
          creator: normalized.creator,
          ...normalized.knobs,
        }
      : null,
  }
}
