/**
 * The gateway bench's second baseline (bench/reads.ts, `gatewayRatio`): a bare `http-proxy` (the library the
 * gateway drives, apps/gateway/src/proxy.ts) with a keep-alive agent, forwarding every request unchanged to one
 * service: no route table, no token check, no rate limits, no CORS, no express. The least a proxy hop in front of the
 * service can cost on this machine. Run as its own process so that its CPU is its own, as the gateway's is.
 *
 *   node --import tsx bench/proxy-baseline.ts <port> <target url>
 */
import http from 'node:http'
import httpProxy from 'http-proxy'

const [port, target] = process.argv.slice(2) as [string, string]
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })
const proxy = httpProxy.createProxyServer({ target, agent, xfwd: true })
proxy.on('error', (_err, _req, res) => {
  const out = res as http.ServerResponse
  if (!out.headersSent) out.writeHead(503)
  out.end()
})
const server = http.createServer((req, res) => proxy.web(req, res))
server.listen(Number(port), '127.0.0.1', () => process.send?.('ready'))
process.on('SIGTERM', () => {
  server.close()
  agent.destroy()
  process.exit(0)
})
