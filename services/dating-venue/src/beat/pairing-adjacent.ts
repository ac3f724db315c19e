import type { Prefs } from '../heart/heart-schema.ts'
import { allowedCompiledPair, compileFilter } from './filters.ts'
import type { AllowedIds } from './pairing-matrix.ts'

/** A persona for the fallback pairing: no vector needed. */
export type AdjacentCandidate = { readonly id: number; readonly prefs?: Prefs | undefined }

/**
 * The fallback when semantic matching is unavailable: adjacent pairing in
 * arrival order under the same filters. The rule: walk the list from the
 * start; an unpaired persona at position i pairs with the first unpaired
 * persona after it (position j > i, smallest j) that it is mutually allowed
 * with; if there is none it stays unpaired and the walk moves on. Pairs are
 * `[lower id, higher id]`, sorted by the lower id.
 *
 * @example
 * adjacentPairs([{ id: 1 }, { id: 2 }, { id: 3 }]) // [[1, 2]]
 */
export const adjacentPairs = (
  candidates: readonly AdjacentCandidate[],
  { allowed }: { allowed?: AllowedIds | undefined } = {},
): [number, number][] => {
  const count = candidates.length
  const filters = candidates.map((candidate) => compileFilter(candidate.prefs))
  // A linked list of the unpaired personas after the current one, so paired ones cost nothing.
  const next = Int32Array.from({ length: count + 1 }, (_, i) => i + 1)
  const previous = Int32Array.from({ length: count + 1 }, (_, i) => i - 1)
  const unlink = (j: number) => {
    // j > i >= 0 always, so previous[j] is a real position.
    next[previous[j]!] = next[j]!
    previous[next[j]!] = previous[j]!
  }
  const pairs: [number, number][] = []
  for (let i = 0; i < count; i = next[i]!) {
    const a = candidates[i]!.id
    for (let j = next[i]!; j < count; j = next[j]!) {
      const b = candidates[j]!.id
      if (!allowedCompiledPair(filters[i]!, filters[j]!)) continue
      if (allowed && !(a < b ? allowed(a, b) : allowed(b, a))) continue
      pairs.push(a < b ? [a, b] : [b, a])
      unlink(j)
      break
    }
  }
  return pairs.sort((p, q) => p[0] - q[0])
}
