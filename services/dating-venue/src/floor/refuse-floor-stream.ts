import type { Context } from 'hono'
import type { FloorRefusal } from './floor-hub.ts'

/** The `{ error }` of each refusal (503). */
export const FLOOR_REFUSED: Record<FloorRefusal, string> = {
  too_many_streams: 'too many live floor streams: try again later',
  too_many_streams_from_address: 'too many live floor streams from this address',
  kept_for_new_clients:
    'the floor is nearly full: its last streams are kept for clients holding none; close one of yours or try again later',
  shutting_down: 'the venue is shutting down: reconnect',
}

/** Seconds a refused client should wait (Retry-After). */
export const FLOOR_RETRY_AFTER_SECONDS = 5

/** 503 `{ error }` with Retry-After, for a stream the hub refused. */
export const refuseFloorStream = (c: Context, reason: FloorRefusal) =>
  c.json({ error: FLOOR_REFUSED[reason] }, 503, {
    'Retry-After': String(FLOOR_RETRY_AFTER_SECONDS),
  })
