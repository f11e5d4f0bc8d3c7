import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parse } from 'yaml'

const ROOT = path.resolve(__dirname, '../..')
const COMPOSE = path.join(ROOT, 'docker-compose.yml')

// docker-compose (Debian's 1.29, which `npm test` installs when missing) validates the file offline, without a
// Docker engine.
it('passes docker-compose config -q', () => {
  execFileSync('docker-compose', ['-f', COMPOSE, 'config', '-q'], { cwd: ROOT, stdio: 'pipe' })
})

it('runs migrations before the services, with health checks and Redis that never evicts', () => {
  const { services } = parse(readFileSync(COMPOSE, 'utf8'), { merge: true })
  expect(Object.keys(services).sort()).toEqual(
    [
      'accounts',
      'accounts-worker',
      'gateway',
      'migrate',
      'postgres',
      'push',
      'push-worker',
      'redis',
      'streaming',
    ].sort(),
  )
  expect(services.migrate.command).toEqual(['node', 'dist/migrate.js'])
  for (const name of ['accounts', 'accounts-worker', 'push', 'push-worker'])
    expect(services[name].depends_on.migrate).toEqual({ condition: 'service_completed_successfully' })
  for (const name of [
    'accounts',
    'accounts-worker',
    'push',
    'push-worker',
    'streaming',
    'gateway',
    'postgres',
    'redis',
  ])
    expect(services[name].healthcheck.test.join(' ')).toMatch(/health\/ready|pg_isready|redis-cli ping/)
  // Streaming reads no database, so it needs no migration; the gateway waits for it.
  expect(services.streaming.depends_on.migrate).toBeUndefined()
  expect(services.gateway.depends_on.streaming).toEqual({ condition: 'service_healthy' })
  expect(services.streaming.command).toEqual(['node', 'apps/streaming/dist/main.js'])
  expect(services.redis.command.join(' ')).toContain('--maxmemory-policy noeviction')
  expect(services.redis.command.join(' ')).toContain('--appendonly yes')
  expect(
    Object.entries(services)
      .filter(([, s]) => (s as { ports?: unknown }).ports)
      .map(([n]) => n),
  ).toEqual(['gateway'])
})
