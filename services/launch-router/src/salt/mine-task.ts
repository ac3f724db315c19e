/** One range of candidates for a mining worker (see mine-worker.js). */
export type MineTask = {
  id: number
  block: Uint8Array
  start: bigint
  from: number
  count: number
  mask: bigint
  value: bigint
  below?: Uint8Array
}
/** The first hit's index (or -1), and the worker's milliseconds on the range: what the search cost. */
export type MineAnswer = { id: number; index: number; ms: number }
