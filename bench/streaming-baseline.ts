/**
 * The streaming bench's baseline (bench/streaming.ts): a bare `ws` broadcast server, the least a streaming
 * process can do. It listens on the same Redis channel as Roost's streaming service and sends every message, framed
 * as Mastodon frames it (once per message), to every connected socket: no tokens, no subscriptions, no filtering,
 * no heartbeats. Run as its own process so that its CPU and memory are its own, as the streaming service's are.
 *
 *   node --import tsx bench/streaming-baseline.ts <port> <redis url> <prefixed channel>
 */
import { Redis } from 'ioredis'
import { WebSocketServer } from 'ws'

const [port, redisUrl, channel] = process.argv.slice(2) as [string, string, string]
const wss = new WebSocketServer({ port: Number(port), host: '127.0.0.1' })
const subscriber = new Redis(redisUrl)
subscriber.on('message', (_channel: string, raw: string) => {
  const { event, payload } = JSON.parse(raw) as { event: string; payload: string }
  const frame = JSON.stringify({ stream: ['public'], event, payload })
  for (const ws of wss.clients) ws.send(frame)
})
const listening = new Promise((resolve) => wss.once('listening', resolve))
void Promise.all([subscriber.subscribe(channel), listening]).then(() => process.send?.('ready'))
process.on('SIGTERM', () => {
  wss.close()
  subscriber.disconnect()
  process.exit(0)
})
