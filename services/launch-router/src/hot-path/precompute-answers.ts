import { answerOf } from '@agents/service-kit'
import type { Matrix } from '../matrix/load-matrix.ts'
import { getCapabilities } from '../operations/get-capabilities.ts'
import { listNetworks } from '../operations/list-networks.ts'
import { listPads } from '../operations/list-pads.ts'

/** One answer computed at start-up: the value (MCP) and its JSON bytes (HTTP). */
export type PrecomputedAnswer = { value: object; json: string; bytes: Buffer }

export type PrecomputedAnswers = {
  listPads: PrecomputedAnswer
  listNetworks: PrecomputedAnswer
  /** get_capabilities of every pad in the matrix, by pad id. */
  capabilities: ReadonlyMap<string, PrecomputedAnswer>
}

const answer = (value: object): PrecomputedAnswer => {
  const json = JSON.stringify(value)
  return { value, json, bytes: Buffer.from(json) }
}

/**
 * The answers that depend on the matrix alone, computed once from the matrix
 * loaded at start-up (whatever pads it holds) by the same functions the
 * operations are: the matrix never changes while the process runs.
 */
export const precomputeAnswers = (matrix: Matrix): PrecomputedAnswers => ({
  listPads: answer(listPads(matrix)),
  listNetworks: answer(listNetworks(matrix)),
  capabilities: new Map(
    // A pad of the matrix is never refused.
    matrix.pads.map((pad) => [pad.id, answer(answerOf(getCapabilities(matrix, { pad: pad.id })))]),
  ),
})
