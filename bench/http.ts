import http from 'node:http'
import type { AddressInfo } from 'node:net'
import autocannon from 'autocannon'

export interface Throughput {
  name: string
  requestsPerSecond: number
  p99Ms: number
  errors: number
}

/** Drives one URL with a fixed number of connections for a fixed time (bounded: it stops by itself). */
export async function measure(
  name: string,
  url: string,
  options: { headers?: Record<string, string>; seconds: number; connections: number; expectNon2xx?: boolean },
): Promise<Throughput> {
  const result = await autocannon({
    url,
    headers: options.headers,
    connections: options.connections,
    duration: options.seconds,
  })
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p99Ms: result.latency.p99,
    errors: result.errors + (options.expectNon2xx ? 0 : result.non2xx),
  }
}

/** The floor of this machine: node's bare http server answering a small JSON body. */
export async function startBaselineServer(body: string) {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}
