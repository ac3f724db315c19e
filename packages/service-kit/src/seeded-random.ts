/**
 * Mulberry32: a small seeded generator in [0, 1), so a test or a bench that
 * draws from it files the same data on every run (and a failure replays).
 *
 * @example const random = seededRandom(42); random() // 0.6011037519201636
 */
export const seededRandom = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}
