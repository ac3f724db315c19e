/** One item of the public floor, as served (JSON and the event stream). */
export type FloorItem =
  | { kind: 'turn'; id: number; couple: number; author: string; body: string; createdAt: string }
  | {
      kind: 'post'
      id: number
      board: string
      handle: string
      body: string
      createdAt: string
      /** A paid featured post, shown first while its slot lasts. */
      featured?: true
    }
