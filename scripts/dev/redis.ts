import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { Redis } from 'ioredis'
import { installDebianPackage, which } from './apt'

/** Answers when a Redis server replies to PING at `url`. */
export async function redisAnswers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  })
  redis.on('error', () => {})
  try {
    await redis.connect()
    return (await redis.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    redis.disconnect()
  }
}

/** The `redis-server` binary; installs Debian's package when it is missing and we may (root with apt-get). */
export function findRedisServer(): string {
  const found =
    which('redis-server') ?? (installDebianPackage('redis-server') ? which('redis-server') : undefined)
  if (found) return found
  throw new Error(
    'No Redis here. Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL to a running server.',
  )
}

/**
 * A Redis server kept in `dir` across runs: append-only file on (queued jobs survive a restart) and `noeviction`
 * (BullMQ's requirement: evicting a job's keys corrupts the queue). A child of ours, in its own process group so
 * Ctrl-C reaches it only through our orderly shutdown.
 */
export function startEmbeddedRedis(dir: string, port: number) {
  const binary = findRedisServer()
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const child = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--save',
      '',
      '--maxmemory-policy',
      'noeviction',
      '--logfile',
      'redis.log',
    ],
    { stdio: 'ignore', detached: true },
  )
  return { url: `redis://127.0.0.1:${port}`, child }
}
