/**
 * `npm run bench`: the write path, the push pipeline, the gateway and the listings of a stack started the way
 * `npm start` starts it (the bundles, five processes, a Postgres and a Redis of the bench's own), measured as
 * ratios to baselines taken in the same run on the same machine: the encryption of one push message on one core,
 * the accounts service without the gateway, page 1 of a listing. Writes bench/results/results.json and
 * bench/results/chart.png. What each figure means: docs/performance.md, "npm run bench".
 *
 *   BENCH_SECONDS (default 5)   length of each throughput measurement
 *   BENCH_ONLY                  comma-separated scenarios: depth, known, gateway, posting, fanout, scale,
 *                               latency, home, streaming, upload, micro
 *   BENCH_STREAMING_CLIENTS     WebSocket clients of the streaming scenario (default 1000)
 *   BENCH_PORT_BASE (4800)      first of the bench's ports (bench/stack.ts)
 *   BENCH_CPU_PROF=dir          run every Roost process with --cpu-prof, profiles written to dir at the end
 *   BENCH_MENTIONS (0,1,10)     the posting scenario's mentions per post, one measurement each
 *   BENCH_PG_STATS=dir          load pg_stat_statements; the statements of each posting scenario and of the
 *                               depth scenario go to dir
 *   BENCH_OUT (bench/results)   where results.json and chart.png go
 *   BENCH_PG_OPTIONS            extra Postgres server options for an experiment (e.g. `-c synchronous_commit=off`)
 *   BENCH_LATENCY_RATE          posts/s of the latency scenario, for an experiment (by default half the
 *                               capacity the run measured: the posting scenario's posts/s with one mention)
 *   BENCH_HOME_RATE (20)        posts/s of the home scenario (post → home latency)
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { renderChart } from './chart'
import { describeTarget, evaluateTargets, readCommittedResults } from './targets'
import { fanOutScaleScenario } from './fanout-scale'
import { createFixtures, startPushSink } from './fixtures'
import { idleCpu, memory, sampleMemory } from './procstat'
import { PG_STATS_OPTIONS, pgStatements } from './pgstats'
import { postToHomeScenario } from './post-to-home'
import { benchPush } from './push'
import { depthScenario, gatewayRatio, knownAccountsScenario, startProxyBaseline } from './reads'
import { startBenchStack } from './stack'
import { streamingScenario } from './streaming'
import { VIDEO_FORMAT } from '../apps/accounts/src/media/av'
import { imageUploadScenario, videoUploadScenario } from './upload'
import { benchTokens } from './tokens'
import {
  encryptionCeiling,
  fanOutScenario,
  latencyScenario,
  postingScenario,
  round,
  settle,
} from './write-path'

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim())
const wanted = (name: string) => !only || only.includes(name)
const out = path.resolve(process.env.BENCH_OUT ?? path.join(__dirname, 'results'))
const profileDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined
const pgStatsDir = process.env.BENCH_PG_STATS ? path.resolve(process.env.BENCH_PG_STATS) : undefined

const log = (...args: unknown[]) => console.log(...args)

async function main() {
  // Read before this run may overwrite it: each target is shown beside the committed run's figure.
  const committed = readCommittedResults()
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      loadAverageAtStart: os.loadavg().map((n) => round(n)),
      node: process.version,
    },
    seconds,
  }
  log(
    `Roost bench: ${seconds} s per measurement; load average ${os
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}`,
  )

  const ceiling = encryptionCeiling(Math.max(2, seconds / 2))
  results.encryption = ceiling
  log(
    `encryption ceiling (web-push generateRequestDetails, cached VAPID, one core): ${ceiling.perSecondOneCore} msg/s, ${ceiling.cpuMsPerMessage.toFixed(3)} CPU-ms each`,
  )

  const stack = await startBenchStack({
    env: profileDir ? { ROOST_NODE_ARGS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {},
    postgresOptions:
      [pgStatsDir ? PG_STATS_OPTIONS : '', process.env.BENCH_PG_OPTIONS ?? ''].join(' ').trim() || undefined,
  })
  const memorySampler = sampleMemory(stack.watched)
  const sink = await startPushSink()
  const fixtures = await createFixtures(stack)
  if (pgStatsDir) mkdirSync(pgStatsDir, { recursive: true })
  const statements = await pgStatements(fixtures.db, pgStatsDir)
  try {
    const authors = await fixtures.users(50, 'author')
    const targets = await fixtures.users(400, 'reader')
    await fixtures.subscribe(targets, sink)
    log(`fixtures: ${authors.length} authors, ${targets.length} readers with push subscriptions`)
    await settle(fixtures, stack)
    const idle = await idleCpu(stack.watched, 8000)
    results.idleCpuMsPerSecond = Object.fromEntries(Object.entries(idle).map(([k, v]) => [k, round(v)]))
    log(`idle CPU (ms/s, subtracted from the CPU figures): ${JSON.stringify(results.idleCpuMsPerSecond)}`)

    if (wanted('depth')) {
      const [author, viewer] = await fixtures.users(2, 'deep')
      await statements.reset()
      const depth = await depthScenario(stack, fixtures, {
        author: author!,
        viewer: viewer!,
        rows: 20_000,
        requests: 100,
      })
      results.depth = depth
      await statements.dump('depth', depth.page1Ms.n + depth.deepPageMs.n)
      log(
        `depth: page 1 p50 ${depth.page1Ms.p50} ms, 20,000 rows deep p50 ${depth.deepPageMs.p50} ms: ${depth.ratio}× (no ANALYZE: ${!depth.analyzedMeanwhile})`,
      )
    }

    if (wanted('gateway')) {
      const gateway = []
      const proxy = await startProxyBaseline(stack)
      try {
        for (const connections of [1, 50]) {
          const r = await gatewayRatio(stack, authors[0]!, proxy, connections, seconds)
          gateway.push(r)
          log(
            `gateway: GET /api/v1/accounts/:id at ${connections} connection(s): gateway ${r.gatewayPerSecond}/s, direct ${r.directPerSecond}/s: ${r.ratio}×; a bare http-proxy ${r.bareProxyPerSecond}/s: ${r.bareProxyRatio}×; CPU per request: gateway ${r.gatewayCpuMsPerRequest} ms, bare proxy ${r.bareProxyCpuMsPerRequest} ms`,
          )
        }
      } finally {
        await proxy.stop()
      }
      results.gateway = gateway
    }

    if (wanted('posting')) {
      const posting = []
      for (const mentions of (process.env.BENCH_MENTIONS ?? '0,1,10').split(',').map(Number)) {
        await statements.reset()
        const r = await postingScenario(stack, fixtures, sink, {
          authors,
          targets,
          mentions,
          seconds,
          connections: 20,
          idle,
        })
        posting.push(r)
        await statements.dump(`posting-${mentions}`, r.posts)
        log(
          `posting, ${mentions} mention(s): ${r.postsPerSecond} posts/s (p99 ${r.p99Ms} ms, ${r.errors} errors), ${r.cpuMsPerPost} CPU-ms per post (${JSON.stringify(r.cpuMsPerPostByProcess)})`,
        )
      }
      results.posting = posting
    }

    if (wanted('fanout')) {
      const r = await fanOutScenario(stack, fixtures, sink, {
        authors,
        targets,
        posts: Math.max(100, seconds * 60),
        connections: 20,
        idle,
      })
      const factor = r.cpuMsPerDelivery / ceiling.cpuMsPerMessage
      results.fanOut = {
        ...r,
        ratioToCeiling: round(r.deliveriesPerSecond / ceiling.perSecondOneCore),
        cpuFactorToEncryption: round(factor),
      }
      log(
        `fan-out 10: ${r.deliveriesPerSecond} deliveries/s = ${round(r.deliveriesPerSecond / ceiling.perSecondOneCore)} of the ceiling; ${r.cpuMsPerDelivery} CPU-ms per delivered push = ${factor.toFixed(1)}× the encryption (${JSON.stringify(r.cpuMsPerDeliveryByProcess)})`,
      )
    }

    if (wanted('scale')) {
      const [author] = await fixtures.users(1, 'popular')
      const r = await fanOutScaleScenario(stack, fixtures, { author: author!, followers: 10_000 })
      results.fanOutScale = r
      log(
        `one status to ${r.followers} followers: ${r.seconds} s (${r.secondsRatio}× a bare pipelined ZADD of the same ids, ${r.baselineSeconds} s), ${r.redisCommands} Redis commands (${r.commandsRatio}× the ZADDs' ${r.baselineRedisCommands}); reached ${r.reached}`,
      )
    }

    if (wanted('latency')) {
      // At half the capacity this run measured (the target's load): the posting scenario's posts/s with one
      // mention, or, when it did not run, a probe of its own, the same measurement.
      let capacity: { postsPerSecond: number; from: 'posting' | 'probe' } | undefined
      if (!process.env.BENCH_LATENCY_RATE) {
        const posted = (results.posting as { mentions: number; postsPerSecond: number }[] | undefined)?.find(
          (p) => p.mentions === 1,
        )
        if (posted) capacity = { postsPerSecond: posted.postsPerSecond, from: 'posting' }
        else {
          const probe = await postingScenario(stack, fixtures, sink, {
            authors,
            targets,
            mentions: 1,
            seconds,
            connections: 20,
            idle,
          })
          capacity = { postsPerSecond: probe.postsPerSecond, from: 'probe' }
          log(`capacity probe, one mention: ${probe.postsPerSecond} posts/s`)
        }
      }
      const rate = capacity
        ? Math.max(1, Math.round(capacity.postsPerSecond / 2))
        : Number(process.env.BENCH_LATENCY_RATE)
      const r = await latencyScenario(stack, fixtures, sink, {
        authors,
        targets,
        rate,
        // Long enough for a p99 of some 1,000 posts where the capacity is low (a minute at most).
        seconds: Math.max(5, seconds * 2, Math.min(60, Math.ceil(1000 / rate))),
      })
      results.latency = { ...r, capacity }
      log(
        `latency at ${r.targetRate} posts/s (${capacity ? `half the capacity, ${capacity.postsPerSecond} posts/s, from ${capacity.from === 'posting' ? 'the posting scenario' : 'a probe'}` : 'BENCH_LATENCY_RATE'}; achieved ${r.achievedRate}), one mention: event → push p50 ${r.eventToPushMs.p50} ms, p99 ${r.eventToPushMs.p99} ms; request p99 ${r.requestMs.p99} ms`,
      )
    }

    if (wanted('home')) {
      const [author] = await fixtures.users(1, 'homeauthor')
      const active = await fixtures.users(10, 'homereader')
      const [newcomer] = await fixtures.users(1, 'newcomer')
      const r = await postToHomeScenario(stack, fixtures, {
        author: author!,
        active,
        newcomer: newcomer!,
        rate: Number(process.env.BENCH_HOME_RATE ?? 20),
        seconds: Math.max(3, seconds),
      })
      results.postToHome = r
      log(
        `post → home at ${r.rate} posts/s (achieved ${r.achievedRate}), ${r.posts} posts to ${r.followers} followers, one follower reading home every ${r.pollMs} ms per post: p50 ${r.postToHomeMs.p50} ms, p99 ${r.postToHomeMs.p99} ms, max ${r.postToHomeMs.max} ms = ${r.ratioP50}× / ${r.ratioP99}× the POST's own round trip (p50 ${r.postRequestMs.p50} ms, p99 ${r.postRequestMs.p99} ms); a home read p50 ${r.homeReadMs.p50} ms, p99 ${r.homeReadMs.p99} ms (${JSON.stringify(r.homeReadStatuses)})`,
      )
      log(
        `post → home: NOT in home within ${r.timeoutMs / 1000} s: ${r.notInHome} of ${r.posts - r.failed} posts (${r.failed} POSTs failed); the new user's first read ever: ${r.newcomer.firstRead?.status}${r.newcomer.firstRead?.heldThePost ? ' with the post' : ' without the post'} in ${r.newcomer.firstRead?.ms} ms, its ${r.newcomer.posts} posts p50 ${r.newcomer.postToHomeMs.p50} ms, p99 ${r.newcomer.postToHomeMs.p99} ms, ${r.newcomer.notInHome} not in home`,
      )
    }

    if (wanted('streaming')) {
      const clients = Number(process.env.BENCH_STREAMING_CLIENTS ?? 1000)
      const users = await fixtures.users(clients, 'listener')
      // Latency at 3 events/s (3,000 deliveries/s), under the burst throughput even on a loaded 2-core machine.
      const r = await streamingScenario(stack, users, {
        burst: 200,
        rate: 3,
        seconds: Math.max(10, seconds * 2),
      })
      results.streaming = r
      log(
        `streaming, ${r.clients} WebSocket clients on public: ${r.roost.deliveredPerSecond} events delivered/s (bare ws ${r.bare.deliveredPerSecond}/s): ${r.deliveredRatio}×; latency at ${r.rate} events/s p50 ${r.roost.latencyMs.p50} ms, p99 ${r.roost.latencyMs.p99} ms (bare ${r.bare.latencyMs.p50} / ${r.bare.latencyMs.p99} ms); memory ${r.roost.memoryKbPerConnection} KB per connection (bare ${r.bare.memoryKbPerConnection} KB)`,
      )
    }

    if (wanted('upload')) {
      const [uploader] = await fixtures.users(1, 'uploader')
      const images = await imageUploadScenario(stack, uploader!, { count: Math.max(10, seconds * 4), idle })
      log(
        `upload, ${images.images} phone photos (${Math.round(images.bytesEach / 1024)} KB each) two at a time: Roost ${images.roostImagesPerCpuSecond} images per CPU-second (${images.roostCpuMsPerImage} CPU-ms each), sharp alone ${images.sharpImagesPerCpuSecond} (${images.sharpCpuMsPerImage} CPU-ms): ${images.ratio}×`,
      )
      // The baseline runs the transcode Roost runs on such a clip (media/av.ts): the same work, without Roost.
      const video = await videoUploadScenario(stack, uploader!, {
        count: 3,
        seconds: 10,
        idle,
        transcodeArgs: (input, output) => ['-i', input, ...VIDEO_FORMAT, '-c:a', 'aac', '-f', 'mp4', output],
      })
      results.upload = { images, video }
      log(
        `upload, ${video.clips} clips of ${video.secondsEach} s 1280×720 MPEG-4 (${Math.round(video.bytesEach / 1024)} KB each), transcoded to H.264/AAC: Roost ${video.roostVideoSecondsPerCpuSecond} video seconds per CPU-second, ffmpeg alone ${video.ffmpegVideoSecondsPerCpuSecond}: ${video.ratio}×`,
      )
    }

    // Last: the remote accounts it inserts stay for any scenario after it.
    if (wanted('known')) {
      const [viewer, mentioned] = await fixtures.users(2, 'known')
      const r = await knownAccountsScenario(stack, fixtures, {
        viewer: viewer!,
        mentioned: mentioned!,
        remoteAccounts: 200_000,
        favourites: 100_000,
        boosts: 20_000,
        requests: 50,
      })
      results.knownAccounts = r
      log(
        `known accounts: with ${r.remoteAccounts.toLocaleString('en')} remote accounts, a post with a mention p50 ${r.after.postMs.p50} ms (${r.postRatio}× ${r.before.postMs.p50} ms without), the public timeline of a user with a domain block p50 ${r.after.publicTimelineMs.p50} ms (${r.publicTimelineRatio}× ${r.before.publicTimelineMs.p50} ms); a status with ${r.favourites.toLocaleString('en')} favourites and ${r.boosts.toLocaleString('en')} boosts p50 ${r.after.popularStatusMs.p50} ms (${r.popularStatusRatio}× ${r.before.popularStatusMs.p50} ms without)`,
      )
    }

    const peaks = memorySampler.stop()
    results.memory = Object.fromEntries(
      stack.watched.map((w) => [w.name, { ...peaks[w.name], endMb: memory(w.pid)?.rssMb }]),
    )
    log(
      `peak RSS (MB): ${Object.entries(peaks)
        .map(([k, v]) => `${k} ${v.peakMb}`)
        .join(', ')}`,
    )
  } finally {
    await fixtures.close()
    sink.close()
    await stack.stop()
  }

  if (wanted('micro')) {
    const tokens = await benchTokens(5000)
    results.tokens = { ...tokens, ratio: round(tokens.roost / tokens.everyTime) }
    log(`token checks/s: full ES256 every time ${tokens.everyTime}, Roost's verifier ${tokens.roost}`)
    const push = await benchPush(1000)
    results.pushSender = { ...push, ratio: round(push.roost / push.naive) }
    log(
      `encrypted pushes/s to a local sink: web-push as usually used ${push.naive}, Roost's sender ${push.roost}`,
    )
  }

  const evaluated = evaluateTargets(results, committed)
  log('targets (issue #38; today: the committed run, bench/results/results.json):')
  for (const t of evaluated) if (t.measured !== undefined) log(`  ${describeTarget(t)}`)
  mkdirSync(out, { recursive: true })
  writeFileSync(path.join(out, 'results.json'), JSON.stringify(results, null, 2) + '\n')
  await renderChart(results, path.join(out, 'chart.png'), evaluated)
  log(`results: ${path.join(out, 'results.json')}, chart: ${path.join(out, 'chart.png')}`)
  if (profileDir) log(`CPU profiles: ${profileDir}`)
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
