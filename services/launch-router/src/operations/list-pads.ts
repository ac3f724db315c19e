import type { Matrix } from '../matrix/load-matrix.ts'

/** Every pad, wired and unproven, with its chains and notes: what an agent calls first. */
export const listPads = (matrix: Matrix) => ({
  pads: matrix.pads.map(({ id, name, kind, chains, status, notes }) => ({
    id,
    name,
    kind,
    chains,
    status,
    notes,
  })),
})
