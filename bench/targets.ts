import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * The targets of issue #38, each a ratio within one run, and two checks of issue #14 that still apply, evaluated on
 * a results.json (docs/performance.md, "npm run bench").
 */
export interface Target {
  name: string
  measured: number | undefined
  target: number
  /** 'max': the figure must stay at or below the target; 'min': at or above. */
  kind: 'max' | 'min'
  unit: string
  met: boolean | undefined
  /** The same figure in the committed run (bench/results/results.json): where the target started from. */
  today?: number
}

/** The committed run's results, the "today" beside each target. */
export const COMMITTED_RESULTS = path.join(__dirname, 'results', 'results.json')

/* eslint-disable @typescript-eslint/no-explicit-any */
/** A run's figures; `committed`: the committed run's, whose event → push p99 counts at whatever rate it ran. */
function figures(r: any, committed = false): Omit<Target, 'met' | 'today'>[] {
  const encryption: number | undefined = r.encryption?.cpuMsPerMessage
  const posting1 = r.posting?.find((p: any) => p.mentions === 1)
  const gatewayToBareProxy = (connections: number) => {
    const g = r.gateway?.find((x: any) => x.connections === connections)
    return g ? round(g.gatewayCpuMsPerRequest / g.bareProxyCpuMsPerRequest) : undefined
  }
  const memoryPeak = r.memory
    ? Math.max(
        ...Object.entries(r.memory)
          .filter(([name]) => name !== 'postgres' && name !== 'redis')
          .map(([, m]: [string, any]) => m.peakMb),
      )
    : undefined
  return [
    {
      name: 'CPU per post with one mention, × the encryption of a push',
      measured: posting1 && encryption ? round(posting1.cpuMsPerPost / encryption) : undefined,
      target: 40,
      kind: 'max',
      unit: '×',
    },
    {
      name: 'push fan-out (10 mentions), of the one-core encryption ceiling',
      measured: r.fanOut?.ratioToCeiling,
      target: 0.3,
      kind: 'min',
      unit: '',
    },
    {
      name: 'CPU per delivered push, × the encryption',
      measured: r.fanOut?.cpuFactorToEncryption,
      target: 6,
      kind: 'max',
      unit: '×',
    },
    {
      // Only a run at half its own measured capacity counts (not one at a rate BENCH_LATENCY_RATE set).
      name: 'event → push p99 at half the measured capacity',
      measured: r.latency?.capacity || committed ? r.latency?.eventToPushMs.p99 : undefined,
      target: 100,
      kind: 'max',
      unit: ' ms',
    },
    {
      name: "gateway's CPU per request, × a bare http-proxy's, 1 connection",
      measured: gatewayToBareProxy(1),
      target: 1.2,
      kind: 'max',
      unit: '×',
    },
    {
      name: "gateway's CPU per request, × a bare http-proxy's, 50 connections",
      measured: gatewayToBareProxy(50),
      target: 1.2,
      kind: 'max',
      unit: '×',
    },
    {
      name: 'peak RSS of the Roost processes (#14)',
      measured: memoryPeak,
      target: 150,
      kind: 'max',
      unit: ' MB',
    },
    {
      name: 'page 20,000 rows deep / page 1, no ANALYZE (#14)',
      measured: r.depth?.ratio,
      target: 1.3,
      kind: 'max',
      unit: '×',
    },
  ]
}

/**
 * The targets of a run, each beside its figure in `committed` (the committed run's results, read before a run
 * overwrites them). The committed run of issue #38's start took event → push at 200 posts/s, about its capacity,
 * not half of it: that p99 is shown as today's all the same.
 */
export function evaluateTargets(r: any, committed: any = readCommittedResults()): Target[] {
  const before = committed ? figures(committed, true) : []
  return figures(r).map((t, i) => ({
    ...t,
    today: before[i]?.measured,
    met:
      t.measured === undefined
        ? undefined
        : t.kind === 'max'
          ? t.measured <= t.target
          : t.measured >= t.target,
  }))
}

export function readCommittedResults(): any {
  return existsSync(COMMITTED_RESULTS) ? JSON.parse(readFileSync(COMMITTED_RESULTS, 'utf8')) : undefined
}

/** One line per target: the figure, the target, today's figure. */
export const describeTarget = (t: Target) =>
  `${t.met === undefined ? '  ' : t.met ? '✓ ' : '✗ '}${t.name}: ${t.measured ?? '–'}${t.unit} (target ${
    t.kind === 'max' ? '≤' : '≥'
  } ${t.target}${t.unit}; today ${t.today ?? '–'}${t.today === undefined ? '' : t.unit})`

const round = (n: number) => Math.round(n * 100) / 100
