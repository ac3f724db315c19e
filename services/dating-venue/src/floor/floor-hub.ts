import { clientGroup } from '@agents/service-kit'
import type { FloorItem } from './floor-item.ts'

/** What one subscriber receives: new items (newest first), a keep-alive, or the end. */
export type FloorEvent =
  | { kind: 'items'; items: FloorItem[] }
  | { kind: 'ping' }
  | { kind: 'end'; reason: FloorEndReason }

/** Why the hub ended a stream (sent to the client as the final event). */
export type FloorEndReason = 'shutting_down' | 'unavailable' | 'lagging'

/** Why the hub refused a new stream (the route answers 503). */
export type FloorRefusal =
  | 'too_many_streams'
  | 'too_many_streams_from_address'
  | 'kept_for_new_clients'
  | 'shutting_down'

export type FloorSubscription = {
  /** The next event, waiting for one; after an `end` it answers `end` again. */
  next: () => Promise<FloorEvent>
  /** Leaves the hub (idempotent); the last subscriber to leave stops the polling. */
  release: () => void
}

export type FloorHub = {
  open: (
    address: string,
  ) => { ok: true; subscription: FloorSubscription } | { ok: false; reason: FloorRefusal }
  /** Ends every stream with a final `shutting_down` event and refuses new ones. */
  close: () => void
  /** `addresses`: the address groups holding streams. */
  stats: () => { streams: number; addresses: number; polls: number; running: boolean }
}

export type CreateFloorHubParameters = {
  /** Reads the floor: the latest items, or those after the cursors (readFloor). */
  read: (cursor?: { afterTurn: number; afterPost: number }) => Promise<FloorItem[]>
  intervalMs?: number
  maxStreams?: number
  /** Streams one client may hold: its address group (`clientGroup`: IPv4 /32, IPv6 /64). */
  maxStreamsPerAddress?: number
  /**
   * The share of `maxStreams` kept for clients holding none: past the rest,
   * a group that holds a stream is refused another (0.2: the last fifth).
   */
  keptForNewShare?: number
  /** How many recent items a new stream starts with (the board limit). */
  backlog?: number
  /** Undelivered batches after which a stream that does not read is ended. */
  maxQueued?: number
  onError?: (error: unknown) => void
}

type Subscriber = { address: string; queue: FloorEvent[]; wake: (() => void) | undefined }

/**
 * One poller for every live floor stream of this process: one read per
 * interval, fanned out to the subscribers; started by the first, stopped by
 * the last. New streams start from the items it already holds, so opening a
 * stream costs no query once the hub runs. Limits are counted here, at open:
 * in total, per address group (an IPv4 address, an IPv6 /64), and past the
 * shared part of the total only for groups that hold no stream yet, so one
 * host with many addresses cannot take every stream.
 */
export const createFloorHub = ({
  read,
  intervalMs = 1000,
  maxStreams = 1000,
  maxStreamsPerAddress = 8,
  keptForNewShare = 0.2,
  backlog = 50,
  maxQueued = 100,
  onError = () => {},
}: CreateFloorHubParameters): FloorHub => {
  const subscribers = new Set<Subscriber>()
  // Streams held per address group (Subscriber.address is the group).
  const perAddress = new Map<string, number>()
  // Up to this many streams, any group within its limit is served; beyond, only groups holding none.
  const sharedStreams = maxStreams - Math.floor(maxStreams * keptForNewShare)
  let recent: FloorItem[] | undefined
  let cursor = { afterTurn: 0, afterPost: 0 }
  let timer: NodeJS.Timeout | undefined
  // Bumped on every stop, so a read that finishes after it is dropped.
  let generation = 0
  let running = false
  let closed = false
  let polls = 0

  const push = (subscriber: Subscriber, event: FloorEvent) => {
    if (subscriber.queue.length >= maxQueued && event.kind !== 'end') {
      end(subscriber, 'lagging')
      return
    }
    subscriber.queue.push(event)
    subscriber.wake?.()
  }

  const end = (subscriber: Subscriber, reason: FloorEndReason) => {
    if (!leave(subscriber)) return
    subscriber.queue.push({ kind: 'end', reason })
    subscriber.wake?.()
  }

  const leave = (subscriber: Subscriber) => {
    if (!subscribers.delete(subscriber)) return false
    const count = (perAddress.get(subscriber.address) ?? 1) - 1
    if (count === 0) perAddress.delete(subscriber.address)
    else perAddress.set(subscriber.address, count)
    if (subscribers.size === 0) stop()
    return true
  }

  const stop = () => {
    clearTimeout(timer)
    timer = undefined
    generation++
    running = false
    recent = undefined
  }

  const advance = (items: FloorItem[]) => {
    for (const item of items)
      if (item.kind === 'turn') cursor.afterTurn = Math.max(cursor.afterTurn, item.id)
      else cursor.afterPost = Math.max(cursor.afterPost, item.id)
  }

  const fail = (error: unknown) => {
    onError(error)
    // The client reconnects (to this replica or another) and starts afresh.
    for (const subscriber of [...subscribers]) end(subscriber, 'unavailable')
  }

  const schedule = (current: number) => {
    timer = setTimeout(() => poll(current), intervalMs)
    timer.unref()
  }

  const poll = async (current: number) => {
    polls++
    const fresh = await read({ ...cursor }).catch((error: unknown) => {
      if (current === generation) fail(error)
      return undefined
    })
    if (!fresh || current !== generation) return
    advance(fresh)
    recent = [...fresh, ...recent!].slice(0, backlog)
    const event: FloorEvent = fresh.length > 0 ? { kind: 'items', items: fresh } : { kind: 'ping' }
    for (const subscriber of [...subscribers]) push(subscriber, event)
    schedule(current)
  }

  const start = async () => {
    running = true
    const current = generation
    polls++
    const initial = await read().catch((error: unknown) => {
      if (current === generation) fail(error)
      return undefined
    })
    if (!initial || current !== generation) return
    cursor = { afterTurn: 0, afterPost: 0 }
    advance(initial)
    recent = initial
    for (const subscriber of subscribers) push(subscriber, { kind: 'items', items: initial })
    schedule(current)
  }

  const subscribe = (address: string): FloorSubscription => {
    const subscriber: Subscriber = { address, queue: [], wake: undefined }
    subscribers.add(subscriber)
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1)
    if (recent) push(subscriber, { kind: 'items', items: recent })
    else if (!running) void start()
    return {
      next: async () => {
        while (subscriber.queue.length === 0)
          await new Promise<void>((wake) => {
            subscriber.wake = wake
          })
        subscriber.wake = undefined
        const event = subscriber.queue[0]!
        if (event.kind !== 'end') subscriber.queue.shift()
        return event
      },
      release: () => end(subscriber, 'shutting_down'),
    }
  }

  return {
    open: (address) => {
      if (closed) return { ok: false, reason: 'shutting_down' }
      if (subscribers.size >= maxStreams) return { ok: false, reason: 'too_many_streams' }
      const group = clientGroup(address)
      const held = perAddress.get(group) ?? 0
      if (held >= maxStreamsPerAddress)
        return { ok: false, reason: 'too_many_streams_from_address' }
      if (held > 0 && subscribers.size >= sharedStreams)
        return { ok: false, reason: 'kept_for_new_clients' }
      return { ok: true, subscription: subscribe(group) }
    },
    close: () => {
      closed = true
      for (const subscriber of [...subscribers]) end(subscriber, 'shutting_down')
      stop()
    },
    stats: () => ({ streams: subscribers.size, addresses: perAddress.size, polls, running }),
  }
}
