import { describe, expect, it } from 'vitest'
import { createFloorHub } from './floor-hub.ts'
import type { FloorItem } from './floor-item.ts'

const post = (id: number): FloorItem => ({
  kind: 'post',
  id,
  board: 'seeking',
  handle: 'h',
  body: `post ${id}`,
  createdAt: new Date(1_700_000_000_000 + id).toISOString(),
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the floor hub', () => {
  it('reads after the newest ids it has seen, once per interval for every subscriber', async () => {
    const cursors: unknown[] = []
    let next = 3
    const hub = createFloorHub({
      intervalMs: 20,
      read: async (cursor) => {
        cursors.push(cursor)
        return cursor ? [post(++next)] : [post(3), post(2)]
      },
    })
    const a = hub.open('a')
    const b = hub.open('b')
    if (!a.ok || !b.ok) throw new Error('refused')
    expect(await a.subscription.next()).toEqual({ kind: 'items', items: [post(3), post(2)] })
    expect(await b.subscription.next()).toEqual({ kind: 'items', items: [post(3), post(2)] })
    expect(await a.subscription.next()).toEqual({ kind: 'items', items: [post(4)] })
    expect(await b.subscription.next()).toEqual({ kind: 'items', items: [post(4)] })
    expect(cursors.slice(0, 2)).toEqual([undefined, { afterTurn: 0, afterPost: 3 }])
    a.subscription.release()
    b.subscription.release()
    const polls = hub.stats().polls
    await sleep(60)
    expect(hub.stats()).toMatchObject({ streams: 0, running: false, polls })
  })

  it('ends every stream when a read fails, and the next subscriber starts afresh', async () => {
    let fail = false
    const hub = createFloorHub({
      intervalMs: 10,
      read: async () => {
        if (fail) throw new Error('database gone')
        return []
      },
    })
    const a = hub.open('a')
    if (!a.ok) throw new Error('refused')
    await a.subscription.next()
    fail = true
    let event = await a.subscription.next()
    while (event.kind === 'ping') event = await a.subscription.next()
    expect(event).toEqual({ kind: 'end', reason: 'unavailable' })
    expect(hub.stats().streams).toBe(0)
    fail = false
    const b = hub.open('a')
    if (!b.ok) throw new Error('refused')
    expect(await b.subscription.next()).toEqual({ kind: 'items', items: [] })
    hub.close()
    expect(await b.subscription.next()).toEqual({ kind: 'end', reason: 'shutting_down' })
    expect(hub.open('c')).toEqual({ ok: false, reason: 'shutting_down' })
  })

  it('ends a subscriber that does not read, without holding up the others', async () => {
    const hub = createFloorHub({ intervalMs: 5, maxQueued: 3, read: async () => [] })
    const slow = hub.open('a')
    const quick = hub.open('b')
    if (!slow.ok || !quick.ok) throw new Error('refused')
    for (let i = 0; i < 6; i++) await quick.subscription.next()
    const seen = []
    for (;;) {
      const event = await slow.subscription.next()
      seen.push(event.kind)
      if (event.kind === 'end') {
        expect(event.reason).toBe('lagging')
        break
      }
    }
    expect(seen.length).toBeLessThanOrEqual(4)
    expect(hub.stats().streams).toBe(1)
    hub.close()
  })
})
