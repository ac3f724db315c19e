import type { SettlementReader } from '../chain/settlement-reader.ts'

/**
 * A settlement reader that can be made unreachable in-process: while `cut`,
 * every read throws as an RPC that does not answer would, so a lost settle
 * answer stays unknown.
 *
 * @example
 * const chain = switchableChain(createSettlementReader({ baseRpcUrl }))
 * chain.cut() // reads fail until chain.restore()
 */
export const switchableChain = (reader: SettlementReader) => {
  let down = false
  return {
    reader: {
      read: (...args: Parameters<SettlementReader['read']>) =>
        down
          ? Promise.reject(new Error('chain RPC unreachable (test switch)'))
          : reader.read(...args),
      probe: reader.probe,
    } satisfies SettlementReader,
    cut: () => {
      down = true
    },
    restore: () => {
      down = false
    },
    /** Whether reads fail now (for other clients of the same RPC to follow the switch). */
    down: () => down,
  }
}
