import type { Redis } from 'ioredis'
import { Counter, Gauge } from 'prom-client'
import type { Registry } from 'prom-client'
import {
  redisChannel,
  STREAMING_EVENTS,
  SUBSCRIBED_REFRESH_S,
  SUBSCRIBED_TTL_S,
  subscribedKey,
} from '@roost/events'
import type { StreamingEvent } from '@roost/events'
import type { Logger } from '@roost/service'

/**
 * One message from a channel, as every listener of that channel receives it. The encodings clients get are built
 * once per message (per `stream` label for WebSockets), however many connections it goes to.
 */
export class Delivery {
  private excluded?: Set<string>
  private readonly frames = new Map<string, string>()
  private sse?: string

  constructor(
    readonly event: StreamingEvent,
    readonly payload: string | undefined,
    private readonly exclude: string[] | undefined,
  ) {}

  /** True when the publisher said this account must not see the message (blocks and mutes). */
  excludes(accountId: string): boolean {
    if (!this.exclude?.length) return false
    this.excluded ??= new Set(this.exclude)
    return this.excluded.has(accountId)
  }

  /** The WebSocket text frame: `{"stream":[…],"event":…,"payload":"<string>"}` (no `payload` when there is none). */
  frame(label: string[]): string {
    const key = label.join('\u0000')
    let frame = this.frames.get(key)
    if (frame === undefined) {
      frame = JSON.stringify({ stream: label, event: this.event, payload: this.payload })
      this.frames.set(key, frame)
    }
    return frame
  }

  /** The Server-Sent Event: `event:` and `data:` lines and a blank line (`data: undefined` without a payload, as Mastodon's). */
  eventStream(): string {
    return (this.sse ??= `event: ${this.event}\ndata: ${this.payload}\n\n`)
  }
}

export type Listener = (delivery: Delivery) => void

const EVENTS = new Set<string>(STREAMING_EVENTS)

/**
 * The Redis side of the streaming service: one subscriber connection for every channel any client listens to
 * (SUBSCRIBE on the first listener, UNSUBSCRIBE after the last), and the `subscribed:<channel>` keys that tell
 * the publisher which channels have listeners (set once the subscription is live, refreshed while it lasts,
 * left to expire after: another replica may still listen).
 */
export function createHub(options: {
  redis: Redis
  subscriber: Redis
  prefix: string
  logger: Logger
  metrics: Registry
}) {
  const { redis, subscriber, prefix, logger } = options
  const listeners = new Map<string, Set<Listener>>()
  const pending = new Map<string, Promise<void>>()
  const received = new Counter({
    name: 'streaming_redis_messages_received_total',
    help: 'Messages received from Redis pub/sub',
    registers: [options.metrics],
  })
  new Gauge({
    name: 'streaming_redis_subscriptions',
    help: 'Redis channels this process is subscribed to',
    registers: [options.metrics],
    collect() {
      this.set(listeners.size)
    },
  })

  const unprefixed = (channel: string) => channel.slice(prefix.length + 1)

  subscriber.on('message', (prefixed: string, raw: string) => {
    received.inc()
    const set = listeners.get(unprefixed(prefixed))
    if (!set?.size) return
    let message: { event?: unknown; payload?: unknown; exclude?: unknown }
    try {
      message = JSON.parse(raw)
    } catch (err) {
      logger.error({ err, channel: prefixed }, 'unparsable message on a streaming channel')
      return
    }
    // Messages without a payload are dropped, but for `filters_changed`, which has none (docs/streaming.md).
    if (typeof message?.event !== 'string' || !EVENTS.has(message.event)) return
    const payload = typeof message.payload === 'string' && message.payload ? message.payload : undefined
    if (payload === undefined && message.event !== 'filters_changed') return
    const exclude = Array.isArray(message.exclude)
      ? message.exclude.filter((id): id is string => typeof id === 'string')
      : undefined
    const delivery = new Delivery(message.event as StreamingEvent, payload, exclude)
    for (const listener of set) listener(delivery)
  })

  const markSubscribed = (channels: string[]) => {
    if (!channels.length) return Promise.resolve()
    const pipeline = redis.pipeline()
    for (const channel of channels) pipeline.set(subscribedKey(prefix, channel), '1', 'EX', SUBSCRIBED_TTL_S)
    return pipeline.exec().then(
      () => undefined,
      (err: unknown) => logger.warn({ err }, 'could not mark channels as subscribed'),
    )
  }
  const refresh = setInterval(() => void markSubscribed([...listeners.keys()]), SUBSCRIBED_REFRESH_S * 1000)
  refresh.unref()

  return {
    /**
     * Adds a listener to a channel; resolves once Redis delivers the channel's messages to this process and
     * the channel is marked as subscribed.
     */
    async listen(channel: string, listener: Listener): Promise<void> {
      let set = listeners.get(channel)
      if (!set) {
        set = new Set()
        listeners.set(channel, set)
        const subscribing = subscriber
          .subscribe(redisChannel(prefix, channel))
          .then(() => markSubscribed([channel]))
          .finally(() => pending.delete(channel))
        pending.set(channel, subscribing)
      }
      set.add(listener)
      await pending.get(channel)
    },

    unlisten(channel: string, listener: Listener) {
      const set = listeners.get(channel)
      if (!set?.delete(listener) || set.size) return
      listeners.delete(channel)
      subscriber.unsubscribe(redisChannel(prefix, channel)).catch((err: unknown) => {
        logger.warn({ err, channel }, 'could not unsubscribe')
      })
    },

    /** True once `channel` has `count` listeners here and Redis delivers its messages (tests wait for it). */
    isLive: (channel: string, count = 1) =>
      (listeners.get(channel)?.size ?? 0) >= count && !pending.has(channel),

    close() {
      clearInterval(refresh)
      listeners.clear()
    },
  }
}

export type Hub = ReturnType<typeof createHub>
