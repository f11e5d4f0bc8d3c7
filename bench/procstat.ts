import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** Clock ticks per second of /proc/<pid>/stat's times (almost always 100). */
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100

interface Stat {
  pid: number
  ppid: number
  /** utime + stime of the process (all its threads), in ms. */
  cpuMs: number
  /** cutime + cstime: the children it has waited for (Postgres backends that exited), in ms. */
  childrenCpuMs: number
}

function stat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces and parentheses: fields are counted after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    const n = (i: number) => Number(fields[i - 3])
    return {
      pid,
      ppid: n(4),
      cpuMs: ((n(14) + n(15)) * 1000) / TICKS,
      childrenCpuMs: ((n(16) + n(17)) * 1000) / TICKS,
    }
  } catch {
    return undefined // gone
  }
}

/** The pids whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const out: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const s = stat(Number(entry))
    if (s?.ppid === pid) out.push(s.pid)
  }
  return out
}

/**
 * The server processes of a stack, by name; a process with `tree: true` (the postmaster) counts with every child
 * it has (backends, background workers), living or exited (through cutime/cstime, which include the children it
 * has reaped).
 */
export interface Watched {
  name: string
  pid: number
  tree?: boolean
}

/** CPU used so far by each watched process (its tree for a `tree` one), in ms. */
export function cpuNow(watched: Watched[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const w of watched) {
    const s = stat(w.pid)
    if (!s) continue
    let total = s.cpuMs
    if (w.tree) {
      total += s.childrenCpuMs
      for (const child of childrenOf(w.pid)) total += stat(child)?.cpuMs ?? 0
    }
    out[w.name] = total
  }
  return out
}

/** A `cpuNow` reading and when it was taken. */
export interface CpuReading {
  at: number
  cpu: Record<string, number>
}

export const cpuReading = (watched: Watched[]): CpuReading => ({
  at: performance.now(),
  cpu: cpuNow(watched),
})

/**
 * What each process uses while the stack is quiet (timers, queue polling, health of its connections), in CPU-ms
 * per second: subtracted from every scenario's figures so that they count the work of the load. Read as the
 * smallest of four windows of `ms / 4` per process, because a one-off burst (a process collecting the garbage of
 * its start-up some seconds later) would otherwise count as idle work and be subtracted from every scenario
 * (docs/performance.md, "npm run bench").
 */
export async function idleCpu(watched: Watched[], ms: number): Promise<Record<string, number>> {
  const smallest: Record<string, number> = {}
  for (let window = 0; window < 4; window++) {
    const before = cpuReading(watched)
    await new Promise((resolve) => setTimeout(resolve, ms / 4))
    const after = cpuReading(watched)
    const seconds = (after.at - before.at) / 1000
    for (const [name, v] of Object.entries(after.cpu)) {
      const perSecond = (v - (before.cpu[name] ?? 0)) / seconds
      smallest[name] = Math.min(smallest[name] ?? Infinity, perSecond)
    }
  }
  return smallest
}

/**
 * CPU ms per process between two readings, less the idle baseline (`idle`, CPU-ms per second, `idleCpu`) over
 * the time between them, plus their `total`.
 */
export function cpuBetween(before: CpuReading, after: CpuReading, idle: Record<string, number> = {}) {
  const out: Record<string, number> = {}
  const seconds = (after.at - before.at) / 1000
  let total = 0
  for (const [name, ms] of Object.entries(after.cpu)) {
    const used = Math.max(0, ms - (before.cpu[name] ?? 0) - (idle[name] ?? 0) * seconds)
    out[name] = Math.round(used)
    total += used
  }
  out.total = Math.round(total)
  return out
}

/** Resident memory of a process in MB: now (VmRSS) and its peak since it started (VmHWM). */
export function memory(pid: number): { rssMb: number; peakMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
    return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) }
  } catch {
    return undefined
  }
}

/**
 * Peak resident memory per watched process (for a tree: the largest of its processes, and the largest sum seen
 * across samples), sampled every `everyMs` until `stop()`; VmHWM covers peaks between samples.
 */
export function sampleMemory(watched: Watched[], everyMs = 250) {
  const peak: Record<string, { peakMb: number; treeSumMb?: number }> = {}
  const sample = () => {
    for (const w of watched) {
      const pids = w.tree ? [w.pid, ...childrenOf(w.pid)] : [w.pid]
      let sum = 0
      let largest = 0
      for (const pid of pids) {
        const m = memory(pid)
        if (!m) continue
        sum += m.rssMb
        largest = Math.max(largest, m.peakMb)
      }
      const p = (peak[w.name] ??= { peakMb: 0 })
      p.peakMb = Math.max(p.peakMb, largest)
      if (w.tree) p.treeSumMb = Math.max(p.treeSumMb ?? 0, sum)
    }
  }
  sample()
  const timer = setInterval(sample, everyMs)
  return {
    stop() {
      clearInterval(timer)
      sample()
      return peak
    },
  }
}
