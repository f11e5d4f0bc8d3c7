/** The targets of issue #14, evaluated on a results.json (docs/performance.md, "npm run bench"). */
export interface Target {
  name: string
  measured: number | undefined
  target: number
  /** 'max': the figure must stay at or below the target; 'min': at or above. */
  kind: 'max' | 'min'
  unit: string
  met: boolean | undefined
}

/* eslint-disable @typescript-eslint/no-explicit-any */
export function evaluateTargets(r: any): Target[] {
  const posting1 = r.posting?.find((p: any) => p.mentions === 1)
  const gateway = (c: number) => r.gateway?.find((g: any) => g.connections === c)?.ratio
  /** The bare proxy's ratio in the same run (bench/proxy-baseline.ts): the least a proxy hop costs. */
  const bare = (c: number) => {
    const ratio = r.gateway?.find((g: any) => g.connections === c)?.bareProxyRatio
    return ratio === undefined ? '' : ` (a bare proxy: ${ratio}×)`
  }
  const memoryPeak = r.memory
    ? Math.max(
        ...Object.entries(r.memory)
          .filter(([name]) => name !== 'postgres' && name !== 'redis')
          .map(([, m]: [string, any]) => m.peakMb),
      )
    : undefined
  const rows: Omit<Target, 'met'>[] = [
    {
      name: 'CPU per delivered push, all processes, × the encryption',
      measured: r.fanOut?.cpuFactorToEncryption,
      target: 12,
      kind: 'max',
      unit: '×',
    },
    {
      name: 'deliveries/s with 10 mentions, of the one-core ceiling',
      measured: r.fanOut?.ratioToCeiling,
      target: 0.3,
      kind: 'min',
      unit: '',
    },
    {
      name: 'posts/s with one mention through the gateway',
      measured: posting1?.postsPerSecond,
      target: 500,
      kind: 'min',
      unit: '/s',
    },
    {
      name: 'event → push p99 at 200 posts/s',
      measured: r.latency?.eventToPushMs.p99,
      target: 50,
      kind: 'max',
      unit: ' ms',
    },
    {
      name: `gateway / direct at 1 connection${bare(1)}`,
      measured: gateway(1),
      target: 0.7,
      kind: 'min',
      unit: '×',
    },
    {
      name: `gateway / direct at 50 connections${bare(50)}`,
      measured: gateway(50),
      target: 0.85,
      kind: 'min',
      unit: '×',
    },
    { name: 'peak RSS of the Roost processes', measured: memoryPeak, target: 150, kind: 'max', unit: ' MB' },
    {
      name: 'page 20,000 rows deep / page 1, no ANALYZE',
      measured: r.depth?.ratio,
      target: 1.3,
      kind: 'max',
      unit: '×',
    },
  ]
  return rows.map((t) => ({
    ...t,
    met:
      t.measured === undefined
        ? undefined
        : t.kind === 'max'
          ? t.measured <= t.target
          : t.measured >= t.target,
  }))
}
