import type { Redis } from 'ioredis'
import type { RevocationList } from './revocation'

/**
 * How long a cached verdict is used at most: the bound on a revocation's delay should Redis's invalidation messages
 * stop arriving without the connection being seen to fail (docs/security.md, "Revocation verdicts in memory").
 */
export const REVOCATION_VERDICT_MAX_AGE_MS = 1000

/** How many verdicts are kept; the oldest goes first. */
const CACHE_SIZE = 10_000

/** The channel on which Redis sends a client-side-caching invalidation (RESP2, `CLIENT TRACKING … REDIRECT`). */
const INVALIDATE = '__redis__:invalidate'

/**
 * The revocation list's answers, remembered in memory while Redis promises to say when the list changes: Redis's
 * server-assisted client-side caching (`CLIENT TRACKING ON BCAST PREFIX <list key>`) sends a message on `tracker`,
 * a connection of its own, whenever the list's key is written, deleted, expired or flushed, in the same turn of its
 * event loop in which it answers the write, so the message is on its way before the revoking service has its answer. Any message drops every verdict (revocations are rare; simpler than reading which token it was). So does
 * any trouble with the tracking connection, and until it is tracking again every call asks Redis, as without the
 * cache. A verdict is used for at most REVOCATION_VERDICT_MAX_AGE_MS: the bound for a connection that stopped
 * delivering without closing. A missing completeness marker (503) is never cached. Why: the look-up was the
 * gateway's only Redis round trip per request, a third of its socket writes (docs/performance.md, "Gateway").
 *
 * `tracker` must be a connection of its own, in no other use (it ends up subscribed), created with
 * `lazyConnect: true` and `autoResubscribe: false`: the tracking is set up anew on each (re)connection.
 */
export class CachedRevocations {
  private verdicts = new Map<string, { revoked: boolean; at: number }>()
  /**
   * Look-ups under way, which a request for the same token joins instead of asking again: when a busy token's
   * verdict ages out, every request in flight would otherwise ask at once.
   */
  private lookUps = new Map<string, Promise<boolean>>()
  /** Bumped by every invalidation and every change of `tracking`: a look-up begun before one is not cached. */
  private generation = 0
  private tracking = false
  private setUp: Promise<void> | undefined

  constructor(
    private readonly list: Pick<RevocationList, 'key' | 'isRevoked'>,
    private readonly tracker: Redis,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    tracker.on('ready', () => void (this.setUp = this.track()))
    tracker.on('close', () => this.forget(false))
    tracker.on('message', (channel: string) => {
      if (channel === INVALIDATE) this.forget(this.tracking)
    })
  }

  /** Connects the tracking connection and sets the tracking up (if that fails, the cache stays unused). */
  async start(): Promise<void> {
    await this.tracker.connect()
    await this.setUp
  }

  /** Whether the cache is in use (Redis tracks the list for it): for tests and the readiness of the process. */
  get isTracking(): boolean {
    return this.tracking
  }

  isRevoked(tokenId: string): Promise<boolean> {
    const now = Date.now()
    const cached = this.verdicts.get(tokenId)
    if (cached && now - cached.at < REVOCATION_VERDICT_MAX_AGE_MS) return Promise.resolve(cached.revoked)
    let lookUp = this.lookUps.get(tokenId)
    if (!lookUp) {
      const lookUps = this.lookUps
      lookUp = this.lookUp(tokenId, now).finally(() => {
        if (lookUps.get(tokenId) === lookUp) lookUps.delete(tokenId)
      })
      lookUps.set(tokenId, lookUp)
    }
    return lookUp
  }

  private async lookUp(tokenId: string, now: number): Promise<boolean> {
    const generation = this.generation
    const revoked = await this.list.isRevoked(tokenId) // throws (503) without the marker: nothing cached
    if (this.tracking && generation === this.generation) {
      this.verdicts.delete(tokenId)
      if (this.verdicts.size >= CACHE_SIZE) this.verdicts.delete(this.verdicts.keys().next().value!)
      this.verdicts.set(tokenId, { revoked, at: now })
    }
    return revoked
  }

  async close(): Promise<void> {
    this.forget(false)
    await this.tracker.quit().catch(() => this.tracker.disconnect())
  }

  private forget(tracking: boolean) {
    this.verdicts.clear()
    this.lookUps = new Map() // a request from now on does not join a look-up begun before the change
    this.generation++
    this.tracking = tracking
  }

  /** On each (re)connection: the connection's id, tracking redirected to itself, then the subscription. */
  private async track() {
    try {
      const id = await this.tracker.client('ID')
      await this.tracker.call(
        'CLIENT',
        'TRACKING',
        'ON',
        'REDIRECT',
        String(id),
        'BCAST',
        'PREFIX',
        this.list.key,
      )
      await this.tracker.subscribe(INVALIDATE)
      this.forget(true)
    } catch (err) {
      this.onError(err) // not tracking: every call asks Redis until the next reconnection tracks again
    }
  }
}
