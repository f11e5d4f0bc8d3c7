import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import request from 'supertest'
import { createLogger } from '@roost/service'
import { createProxy } from './proxy'

const logger = createLogger('gateway-proxy-test', 'silent')

/** A real upstream on a loopback port; `close` frees the port, so its URL then refuses connections. */
async function upstream() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify({ path: req.url, authorization: req.headers.authorization ?? null, port }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const url = `http://127.0.0.1:${port}`
  return { url, close: () => new Promise((resolve) => server.close(resolve)) }
}

describe('the proxy to a service', () => {
  it('forwards the request unchanged and hands back the answer', async () => {
    const up = await upstream()
    const proxy = createProxy([up.url], 4, logger)
    const app = express().use(proxy.middleware)
    const res = await request(app).get('/api/v1/instance?x=1').set('Authorization', 'Bearer t').expect(200)
    expect(res.body).toEqual({
      path: '/api/v1/instance?x=1',
      authorization: 'Bearer t',
      port: expect.any(Number),
    })
    proxy.close()
    await up.close()
  })

  it('takes several copies of a service in turn', async () => {
    const [a, b] = [await upstream(), await upstream()]
    const proxy = createProxy([a.url, b.url], 4, logger)
    const app = express().use(proxy.middleware)
    const ports = []
    for (let i = 0; i < 4; i++) ports.push((await request(app).get('/api/v1/instance').expect(200)).body.port)
    const [portA, portB] = [a, b].map((u) => Number(new URL(u.url).port))
    expect(ports).toEqual([portA, portB, portA, portB])
    proxy.close()
    await a.close()
    await b.close()
  })

  it('answers a Mastodon-style 503 with Retry-After when the service does not answer', async () => {
    const up = await upstream()
    await up.close()
    const proxy = createProxy([up.url], 4, logger)
    const app = express().use(proxy.middleware)
    const res = await request(app).get('/api/v1/instance').expect(503)
    expect(res.body).toEqual({
      error: 'There was a temporary problem serving your request, please try again',
    })
    expect(res.headers['retry-after']).toBe('5')
    proxy.close()
  })
})
