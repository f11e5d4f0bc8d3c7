import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRedisPrefix, freePort, TEST_REDIS_URL } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'

// This file's services log to a file of their own, so the test can read what each one saw.
const logFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'roost-logs-')), 'services.log')
let stack: Stack
beforeAll(async () => {
  process.env.LOG_DESTINATION = logFile
  stack = await startStack({ env: { LOG_LEVEL: 'info' } })
})
afterAll(() => stack.stop())

/** The request ids each service logged a request with, waiting (up to 3 s) for the asynchronous log writes. */
async function loggedRequestIds(requestPath: string, want: number) {
  const deadline = Date.now() + 3000
  for (;;) {
    const lines = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { service: string; req?: { id: string; url: string } })
      .filter((l) => l.req?.url === requestPath)
    if (lines.length >= want || Date.now() > deadline)
      return lines.map((l) => ({ service: l.service, id: l.req!.id }))
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('X-Request-Id', () => {
  it('is assigned when absent, and the service sees the same one', async () => {
    const res = await stack.api().get('/oauth/jwks?first').expect(200)
    const id = res.headers['x-request-id']
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(await loggedRequestIds('/oauth/jwks?first', 2)).toEqual(
      expect.arrayContaining([
        { service: 'gateway', id },
        { service: 'accounts', id },
      ]),
    )
  })

  it('is forwarded unchanged when present', async () => {
    const id = 'client-chosen.id:42'
    const res = await stack.api().get('/oauth/jwks?second').set('X-Request-Id', id).expect(200)
    expect(res.headers['x-request-id']).toBe(id)
    const seen = await loggedRequestIds('/oauth/jwks?second', 2)
    expect(seen).toHaveLength(2)
    expect(seen.every((s) => s.id === id)).toBe(true)
  })

  it('is logged with the request, never with the access_token of its query string', async () => {
    await stack.api().get('/oauth/jwks?access_token=not-for-the-logs&third').expect(200)
    const seen = await loggedRequestIds('/oauth/jwks?access_token=[redacted]&third', 2)
    expect(seen.map((s) => s.service).sort()).toEqual(['accounts', 'gateway'])
    expect(readFileSync(logFile, 'utf8')).not.toContain('not-for-the-logs')
  })

  it('is replaced when it is not a plausible id (no log injection)', async () => {
    const res = await stack.api().get('/oauth/jwks').set('X-Request-Id', 'bad id with spaces').expect(200)
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('health and metrics of every process', () => {
  const services = () => ({
    // The gateway's metrics are on its internal port (GATEWAY_METRICS_PORT), the others' on their own.
    gateway: { url: stack.url, metricsUrl: stack.gateway.metricsUrl, checks: ['redis'] },
    accounts: { url: stack.accountsUrl, metricsUrl: stack.accountsUrl, checks: ['postgres', 'redis'] },
    push: { url: stack.pushUrl, metricsUrl: stack.pushUrl, checks: ['postgres', 'redis'] },
  })

  it.each(['gateway', 'accounts', 'push'] as const)(
    '%s: /health/live, /health/ready, /metrics',
    async (name) => {
      const { url, metricsUrl, checks } = services()[name]
      const live = await fetch(`${url}/health/live`)
      expect(live.status).toBe(200)
      expect(await live.json()).toEqual({ status: 'ok' })

      const ready = await fetch(`${url}/health/ready`)
      expect(ready.status).toBe(200)
      expect(await ready.json()).toEqual({
        status: 'ok',
        checks: Object.fromEntries(checks.map((c) => [c, 'ok'])),
      })

      const metrics = await fetch(`${metricsUrl}/metrics`)
      expect(metrics.status).toBe(200)
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/)
      const text = await metrics.text()
      expect(text).toContain('# TYPE http_request_duration_seconds histogram')
      expect(text).toContain(`process_cpu_user_seconds_total{service="${name}"}`)
      expect(text).toMatch(
        /http_request_duration_seconds_count\{[^}]*route="\/health\/ready",status="200"\} \d+/,
      )
    },
  )
})

describe('the gateway keeps its metrics off the public port', () => {
  it('answers 404 for /metrics on the public port, and serves them on GATEWAY_METRICS_PORT', async () => {
    const res = await stack.api().get('/metrics').expect(404)
    expect(res.body).toEqual({ error: 'Not Found' })
    await stack.api().get('/api/openapi.json').expect(200)
    expect(stack.gateway.metricsUrl).not.toBe(stack.url)
    const metrics = await fetch(`${stack.gateway.metricsUrl}/metrics`)
    expect(await metrics.text()).toContain('route="/api/openapi.json"')
  })
})

describe('graceful shutdown', () => {
  it('the gateway process exits 0 on SIGTERM', async () => {
    const port = await freePort()
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/gateway/src/main.ts'], {
      cwd: path.join(__dirname, '../..'),
      env: {
        ...process.env,
        LOG_LEVEL: 'silent',
        GATEWAY_PORT: String(port),
        GATEWAY_METRICS_PORT: '0',
        GATEWAY_SECRET: 'test-gateway-secret-that-is-long-enough-0123456789',
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: createRedisPrefix(),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr!.on('data', (d) => (stderr += d))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    try {
      const deadline = Date.now() + 20_000
      let live = false
      while (!live && Date.now() < deadline && child.exitCode === null) {
        live = await fetch(`http://127.0.0.1:${port}/health/live`).then(
          (r) => r.ok,
          () => false,
        )
        if (!live) await new Promise((r) => setTimeout(r, 100))
      }
      expect({ live, stderr }).toEqual({ live: true, stderr: '' })
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  }, 30_000)
})
