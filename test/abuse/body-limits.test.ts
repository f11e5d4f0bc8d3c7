import http from 'node:http'
import net from 'node:net'
import { startStack } from '../stack'
import type { Stack } from '../stack'

let stack: Stack
beforeAll(async () => {
  stack = await startStack({
    env: {
      GATEWAY_BODY_LIMIT: '10000',
      GATEWAY_UPLOAD_BODY_LIMIT: '50000',
      GATEWAY_HEADERS_TIMEOUT_MS: '500',
    },
  })
})
afterAll(() => stack.stop())

const TOO_LARGE = { error: 'The request is too large' }

/** Sends a chunked body (no Content-Length) in pieces and resolves with the status and body. */
function sendChunked(path: string, pieces: string[]) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(`${stack.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
    })
    req.on('response', (res) => {
      let body = ''
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
    })
    req.on('error', reject)
    for (const piece of pieces) req.write(piece)
    req.end()
  })
}

describe('body limits and timeouts at the gateway', () => {
  it('refuses a declared Content-Length over the limit with 413 JSON', async () => {
    const res = await stack
      .api()
      .post('/api/v1/apps')
      .send({ client_name: 'x'.repeat(20_000), redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' })
      .expect(413)
    expect(res.body).toEqual(TOO_LARGE)
    await stack
      .api()
      .post('/api/v1/apps')
      .send({ client_name: 'small', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' })
      .expect(200)
  })

  it('cuts a chunked body when it passes the limit', async () => {
    const res = await sendChunked('/api/v1/apps', [
      '{"client_name": "',
      ...Array(4).fill('x'.repeat(4000)),
      '"}',
    ])
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual(TOO_LARGE)
    // Under the limit, the chunked body reaches the service.
    const small = await sendChunked('/api/v1/apps', [
      '{"client_name": "chunked", ',
      '"redirect_uris": "urn:ietf:wg:oauth:2.0:oob"}',
    ])
    expect(small.status).toBe(200)
    expect(JSON.parse(small.body).name).toBe('chunked')
  })

  it('gives upload routes the larger limit', async () => {
    const token = await stack.userToken('write')
    const auth = { Authorization: `Bearer ${token}` }
    const within = await stack
      .api()
      .post('/api/v1/media')
      .set(auth)
      .send({ file: 'x'.repeat(30_000) })
    expect(within.status).not.toBe(413)
    await stack
      .api()
      .post('/api/v1/media')
      .set(auth)
      .send({ file: 'x'.repeat(60_000) })
      .expect(413, TOO_LARGE)
  })

  it('answers 408 and closes a connection that sends its headers too slowly', async () => {
    const socket = net.connect(new URL(stack.url).port as unknown as number, '127.0.0.1')
    let received = ''
    socket.on('data', (d) => (received += d))
    socket.write('GET /api/v1/instance HTTP/1.1\r\nHost: x\r\n')
    const closed = await new Promise<number>((resolve) => {
      const started = Date.now()
      socket.on('close', () => resolve(Date.now() - started))
    })
    expect(received).toMatch(/^HTTP\/1\.1 408/)
    expect(closed).toBeLessThan(10_000) // 500 ms configured: closed by the timeout, not left open
  })
})
