import type { Prefs } from '../heart/heart-schema.ts'
import { allowedPair } from './filters.ts'

/**
 * The pairing rule read literally, for tests: in each round every remaining
 * persona names its most similar remaining allowed persona (ties to the
 * lower id); every mutual pair forms at once; repeat until a round forms
 * none. O(n³·d) and deliberately independent of the fast implementation
 * (its own dot product, no neighbour lists, no usearch).
 */
export const referencePairs = (
  candidates: ReadonlyArray<{ id: number; vector: Float32Array; prefs?: Prefs | undefined }>,
  allowedIds: (a: number, b: number) => boolean = () => true,
): { pairs: [number, number][]; rounds: [number, number][][] } => {
  const dot = (a: Float32Array, b: Float32Array) => {
    let sum = 0
    for (let k = 0; k < a.length; k++) sum += a[k]! * b[k]!
    return sum
  }
  const may = (a: number, b: number) => {
    const x = candidates[a]!
    const y = candidates[b]!
    return allowedPair(x.prefs, y.prefs) && allowedIds(Math.min(x.id, y.id), Math.max(x.id, y.id))
  }
  let remaining = candidates.map((_, i) => i)
  const rounds: [number, number][][] = []
  for (;;) {
    const best = new Map<number, number>()
    for (const a of remaining) {
      let chosen = -1
      let chosenScore = -Infinity
      for (const b of remaining) {
        if (b === a || !may(a, b)) continue
        const score = dot(candidates[a]!.vector, candidates[b]!.vector)
        const better =
          score > chosenScore ||
          (score === chosenScore && candidates[b]!.id < candidates[chosen]!.id)
        if (better) {
          chosen = b
          chosenScore = score
        }
      }
      if (chosen >= 0) best.set(a, chosen)
    }
    const round: [number, number][] = []
    for (const [a, b] of best) if (a < b && best.get(b) === a) round.push([a, b])
    if (round.length === 0) break
    const gone = new Set(round.flat())
    remaining = remaining.filter((i) => !gone.has(i))
    rounds.push(
      round.map(([a, b]) => {
        const [x, y] = [candidates[a]!.id, candidates[b]!.id]
        return x < y ? [x, y] : [y, x]
      }),
    )
  }
  const pairs = rounds.flat().sort((p, q) => p[0] - q[0])
  return { pairs, rounds }
}
