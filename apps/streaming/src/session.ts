import type { Delivery, Hub, Listener } from './hub'
import type { Stream, Viewer } from './streams'

/**
 * One client connection (an event stream or a WebSocket) and the streams it is subscribed to. `write` is the
 * transport's: it receives the delivery and the stream it came through.
 */
export class Session {
  private readonly subscriptions = new Map<string, { stream: Stream; listener: Listener }>()
  private closed = false

  constructor(
    readonly viewer: Viewer,
    private readonly hub: Hub,
    private readonly write: (delivery: Delivery, stream: Stream) => void,
    /** Ends the connection (revoked token, shutdown). */
    readonly end: () => void,
  ) {}

  /** The same channels subscribed twice are one subscription (Mastodon ignores duplicates). */
  static keyOf(stream: Stream) {
    return stream.channels.join(';')
  }

  has(stream: Stream) {
    return this.subscriptions.has(Session.keyOf(stream))
  }

  async subscribe(stream: Stream): Promise<void> {
    const key = Session.keyOf(stream)
    if (this.closed || this.subscriptions.has(key)) return
    const { accountId } = this.viewer
    const listener: Listener = (delivery) => {
      // Public and hashtag streams skip statuses the viewer must not see (Mastodon filters only these events).
      if (
        stream.filtered &&
        (delivery.event === 'update' || delivery.event === 'status.update') &&
        delivery.excludes(accountId)
      )
        return
      this.write(delivery, stream)
    }
    this.subscriptions.set(key, { stream, listener })
    await Promise.all(stream.channels.map((channel) => this.hub.listen(channel, listener)))
  }

  /** False when the stream was not subscribed. */
  unsubscribe(stream: Stream): boolean {
    const key = Session.keyOf(stream)
    const subscription = this.subscriptions.get(key)
    if (!subscription) return false
    for (const channel of stream.channels) this.hub.unlisten(channel, subscription.listener)
    this.subscriptions.delete(key)
    return true
  }

  streams(): Stream[] {
    return [...this.subscriptions.values()].map((s) => s.stream)
  }

  /** Leaves every channel; called once the connection is gone. */
  close() {
    if (this.closed) return
    this.closed = true
    for (const { stream } of [...this.subscriptions.values()]) this.unsubscribe(stream)
  }
}
