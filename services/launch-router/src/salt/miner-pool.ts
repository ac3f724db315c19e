import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { compileMiner } from './compile-miner.ts'
import type { MineAnswer, MineTask } from './mine-task.ts'

export type MinerPool = {
  size: number
  /** Runs one range on the next free worker; resolves to the first hit's index (or -1) and the worker's milliseconds on it. */
  run: (task: Omit<MineTask, 'id'>) => Promise<RangeAnswer>
  close: () => Promise<void>
}

export type RangeAnswer = Omit<MineAnswer, 'id'>

type Pending = {
  task: MineTask
  resolve: (answer: RangeAnswer) => void
  reject: (error: Error) => void
}

const workerUrl = new URL('./mine-worker.js', import.meta.url)

/**
 * A fixed pool of salt-mining worker threads, one per core by default.
 * Ranges from concurrent requests queue fairly, first come first served.
 */
export const createMinerPool = async ({
  size = availableParallelism(),
}: {
  size?: number
} = {}): Promise<MinerPool> => {
  const module = await compileMiner()
  const queue: Pending[] = []
  const idle: Worker[] = []
  const busy = new Map<Worker, Pending>()
  let nextId = 0
  let closed = false

  const dispatch = () => {
    while (idle.length > 0 && queue.length > 0) {
      const worker = idle.pop()!
      const pending = queue.shift()!
      busy.set(worker, pending)
      worker.postMessage(pending.task)
    }
  }

  const spawn = () =>
    new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(workerUrl, { workerData: { module } })
      worker.once('online', () => resolve(worker))
      worker.on('message', (answer: MineAnswer) => {
        const pending = busy.get(worker)
        busy.delete(worker)
        idle.push(worker)
        pending?.resolve({ index: answer.index, ms: answer.ms })
        dispatch()
      })
      worker.on('error', (error) => {
        busy.get(worker)?.reject(error)
        busy.delete(worker)
        reject(error)
      })
    })

  const workers = await Promise.all(Array.from({ length: size }, spawn))
  idle.push(...workers)

  return {
    size,
    run: (task) =>
      new Promise((resolve, reject) => {
        if (closed) return reject(new Error('miner pool is closed'))
        queue.push({ task: { ...task, id: nextId++ }, resolve, reject })
        dispatch()
      }),
    close: async () => {
      closed = true
      for (const pending of queue.splice(0)) pending.reject(new Error('miner pool is closed'))
      await Promise.all(workers.map((worker) => worker.terminate()))
    },
  }
}
