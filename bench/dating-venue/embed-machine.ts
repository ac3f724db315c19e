import { readFileSync } from 'node:fs'

// CPU accounting for one measured round: how many cores this process used
// (all its threads: main and workers) and how many the rest of the machine
// used meanwhile. The machines are shared; a round where something else took
// most of a core is not a fair round, and the table should say so.

const TICKS_PER_SECOND = 100 // USER_HZ on Linux

/** Busy and steal time of the whole machine in seconds (steal: the hypervisor gave our vCPUs to another guest). */
const machineSeconds = () => {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number)
    return {
      busy: (user! + nice! + system! + irq! + softirq!) / TICKS_PER_SECOND,
      steal: steal! / TICKS_PER_SECOND,
    }
  } catch {
    return { busy: Number.NaN, steal: Number.NaN } // not Linux: the columns read NaN
  }
}

export type CpuSample = {
  wallSeconds: number
  /** Cores this process kept busy: main thread, workers, GC. */
  ourCores: number
  /** Cores the rest of the machine kept busy meanwhile. */
  otherCores: number
  /** Cores of CPU time the hypervisor took away. */
  stealCores: number
}

/** Starts a sample; the returned function ends it. */
export const startCpuSample = () => {
  const started = performance.now()
  const ours = process.cpuUsage()
  const machine = machineSeconds()
  return (): CpuSample => {
    const wallSeconds = (performance.now() - started) / 1000
    const used = process.cpuUsage(ours)
    const ourSeconds = (used.user + used.system) / 1e6
    const after = machineSeconds()
    return {
      wallSeconds,
      ourCores: ourSeconds / wallSeconds,
      otherCores: Math.max(0, after.busy - machine.busy - ourSeconds) / wallSeconds,
      stealCores: (after.steal - machine.steal) / wallSeconds,
    }
  }
}

/**
 * Waits until the rest of the machine has used less than `threshold` cores
 * over a 2-second window, for at most `maxSeconds`; resolves to whether it
 * did. Linux schedules each session as one group (autogroup), so a single
 * busy process elsewhere caps this whole process to one of two cores, pool
 * or not: rounds measured then say nothing about the pool.
 */
export const waitForQuiet = async ({ threshold = 0.15, maxSeconds = 60 } = {}) => {
  const deadline = performance.now() + maxSeconds * 1000
  do {
    const stop = startCpuSample()
    await new Promise((resolve) => setTimeout(resolve, 2000))
    if (stop().otherCores < threshold) return true
  } while (performance.now() < deadline)
  return false
}
