import { readdirSync, readFileSync } from 'node:fs'

// Linux /proc accounting is in clock ticks (USER_HZ, 100 per second).
const TICKS = 100

/** utime + stime of a process (all its threads), in seconds; 0 once it has gone. */
export const cpuSeconds = (pid: number | 'self') => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS
  } catch {
    return 0
  }
}

/** Every `postgres` process's CPU seconds, its reaped backends' included (PostgreSQL runs). */
export const postgresCpuSeconds = () => {
  let total = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const [head, rest] = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')
      if (head!.slice(head!.indexOf('(') + 1) !== 'postgres') continue
      const fields = rest!.split(' ')
      total += [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0)
    } catch {}
  }
  return total / TICKS
}

/** The whole machine's busy CPU seconds (all but idle, iowait and steal). */
export const machineCpuSeconds = () => {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1)
  // user nice system idle iowait irq softirq steal
  return [0, 1, 2, 5, 6].reduce((sum, index) => sum + Number(fields[index]), 0) / TICKS
}
