import { readdirSync, readFileSync } from 'node:fs'

// Linux /proc accounting, in clock ticks (USER_HZ, 100 per second).
const TICKS = 100

/** utime, stime, cutime, cstime of one process, or undefined once it has gone. */
const times = (pid: number | 'self') => {
  try {
    const [comm, rest] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')
    const fields = rest!.split(' ')
    const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((index) => Number(fields[index]))
    return {
      comm: comm!.slice(comm!.indexOf('(') + 1),
      own: utime! + stime!,
      children: cutime! + cstime!,
    }
  } catch {
    return undefined
  }
}

/** Every PostgreSQL process: its own time plus its reaped children's (the postmaster's backends that exited). */
const postgresTicks = () => {
  let total = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const found = times(Number(entry))
    if (found?.comm === 'postgres') total += found.own + found.children
  }
  return total
}

/** The whole machine's busy ticks: all but idle, iowait and steal (the hypervisor's). */
const machineTicks = () => {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1)
  // user nice system idle iowait irq softirq steal
  return [0, 1, 2, 5, 6].reduce((sum, index) => sum + Number(fields[index]), 0)
}

const sample = (serverPid: number | undefined) => {
  const self = times('self')!
  return {
    postgres: postgresTicks(),
    // This process: the autocannon load; its reaped children: pgbench.
    generator: self.own,
    pgbench: self.children,
    server: serverPid ? (times(serverPid)?.own ?? 0) : 0,
    machine: machineTicks(),
  }
}

type Sample = ReturnType<typeof sample>

export type CpuCores = {
  postgres: number
  generator: number
  server: number
  machine: number
  other: number
}

/**
 * Starts measuring where the CPU goes; the returned function gives, per
 * part, the CPU seconds used since, divided by `seconds` (so 1.0 = one
 * whole core). `other` is the rest of the machine: the devnet, other users.
 */
export const measureCpu = ({ serverPid }: { serverPid?: number } = {}) => {
  const before = sample(serverPid)
  return (seconds: number): CpuCores => {
    const after = sample(serverPid)
    const cores = (key: keyof Sample) => (after[key] - before[key]) / TICKS / seconds
    const shares = {
      postgres: cores('postgres'),
      generator: cores('generator') + cores('pgbench'),
      server: cores('server'),
      machine: cores('machine'),
    }
    return { ...shares, other: shares.machine - shares.postgres - shares.generator - shares.server }
  }
}
