import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createOutboundClient, OutboundError } from './outbound'
import { PrivateAddressError } from './address-guard'

let server: http.Server
let base: string
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/big') return res.end(Buffer.alloc(4096))
    res.setHeader('Content-Type', 'application/json')
    res.end(JSON.stringify({ method: req.method, ua: req.headers['user-agent'] }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise((resolve) => server.close(resolve)))

describe('the outbound client', () => {
  it('reaches an allowed loopback peer over http when told to, with its user agent', async () => {
    const client = createOutboundClient({
      allowHttp: true,
      allowedPrivateAddresses: '127.0.0.0/8',
      userAgent: 'Roost/test',
    })
    const res = await client.request('GET', `${base}/x`)
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body.toString())).toEqual({ method: 'GET', ua: 'Roost/test' })
    client.close()
  })

  it('refuses http:// by default, private addresses unless allowed, and answers over the size limit', async () => {
    const strict = createOutboundClient({ allowedPrivateAddresses: '127.0.0.0/8' })
    await expect(strict.request('GET', `${base}/x`)).rejects.toBeInstanceOf(OutboundError)
    const noPrivate = createOutboundClient({ allowHttp: true })
    await expect(noPrivate.request('GET', `${base}/x`)).rejects.toBeInstanceOf(PrivateAddressError)
    const small = createOutboundClient({
      allowHttp: true,
      allowedPrivateAddresses: '127.0.0.0/8',
      maxBytes: 1024,
    })
    await expect(small.request('GET', `${base}/big`)).rejects.toThrow('is too large')
    small.close()
  })

  it('lets one request take a larger answer, or drop its body, over the same connections', async () => {
    const client = createOutboundClient({
      allowHttp: true,
      allowedPrivateAddresses: '127.0.0.0/8',
      maxBytes: 1024,
    })
    await expect(client.request('GET', `${base}/big`)).rejects.toThrow('is too large')
    const media = await client.request('GET', `${base}/big`, {}, undefined, { maxBytes: 8192 })
    expect(media.body).toHaveLength(4096)
    const dropped = await client.request('GET', `${base}/big`, {}, undefined, { discardBody: true })
    expect(dropped.status).toBe(200)
    expect(dropped.body).toHaveLength(0)
    client.close()
  })
})
