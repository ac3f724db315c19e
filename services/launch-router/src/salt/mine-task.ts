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
export type MineAnswer = { id: number; index: number }
