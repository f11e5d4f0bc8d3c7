import { decodeJwt } from 'jose'
import { channels, redisChannel, subscribedKey } from '@roost/events'
import type { StreamingMessage } from '@roost/events'
import { createRedis } from '@roost/events'
import { disableUser, suspendAccount } from '../../apps/accounts/src/domain/moderation'
import { publishLoginState } from '../../apps/accounts/src/users/login-state'
import { bearer, eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { openEventStream, openSocket, refusedUpgrade } from './helpers'

/**
 * Mastodon's streaming protocol through the gateway (docs/streaming.md): authentication and its errors, scopes,
 * WebSocket subscriptions, event streams, heartbeats and revocation. Events are published straight to the Redis
 * channels here; test/streaming/events.test.ts has the accounts worker publish them.
 */
let stack: Stack
let redis: ReturnType<typeof createRedis>
beforeAll(async () => {
  stack = await startStack({
    // Pings every 2 s: shorter ones could cut off sockets of this very process while a busy machine stalls it.
    env: { STREAMING_HEARTBEAT_INTERVAL_MS: '100', STREAMING_PING_INTERVAL_MS: '2000' },
  })
  redis = createRedis(stack.env.REDIS_URL!)
}, 60_000)
afterAll(async () => {
  await redis?.quit()
  await stack?.stop()
})

const publish = (channel: string, message: StreamingMessage) =>
  redis.publish(redisChannel(stack.env.REDIS_PREFIX!, channel), JSON.stringify(message))
const live = (channel: string, listeners = 1) =>
  eventually(async () => stack.streaming.hub.isLive(channel, listeners))

/** A user with a token of `scope`, and what is needed to revoke it through /oauth/revoke. */
async function streamer(scope = 'read write follow') {
  const user = await stack.createUser()
  const app = await stack.registerApp(scope)
  const res = await stack
    .api()
    .post('/oauth/token')
    .send({
      grant_type: 'password',
      client_id: app.client_id,
      client_secret: app.client_secret,
      username: user.email,
      password: user.password,
      scope,
    })
    .expect(200)
  const token = res.body.access_token as string
  const revoke = () =>
    stack
      .api()
      .post('/oauth/revoke')
      .send({ client_id: app.client_id, client_secret: app.client_secret, token })
      .expect(200)
  return { ...user, token, revoke }
}

describe('health and discovery', () => {
  it('answers GET /api/v1/streaming/health with OK through the gateway, without a token', async () => {
    const res = await stack.api().get('/api/v1/streaming/health').expect(200)
    expect(res.text).toBe('OK')
    expect(res.headers['content-type']).toMatch(/^text\/plain/)
    expect(res.headers['cache-control']).toBe('private, no-store')
  })

  it('advertises the streaming URL (the gateway, as ws:) in both instance documents', async () => {
    const v1 = await stack.api().get('/api/v1/instance').expect(200)
    const v2 = await stack.api().get('/api/v2/instance').expect(200)
    const ws = stack.url.replace(/^http/, 'ws')
    expect(v1.body.urls.streaming_api).toBe(ws)
    expect(v2.body.configuration.urls.streaming).toBe(ws)
  })

  it('puts the account id in user tokens, so streaming needs no database', async () => {
    const user = await streamer()
    expect(decodeJwt(user.token)).toMatchObject({ sub: user.userId, account_id: user.accountId })
  })
})

describe('event streams (Server-Sent Events): errors as the streaming server words them', () => {
  it('refuses a missing, invalid, app or revoked token with 401', async () => {
    const missing = await openEventStream(stack, '/api/v1/streaming/user')
    expect([missing.status, JSON.parse(missing.body())]).toEqual([401, { error: 'Missing access token' }])
    const invalid = await openEventStream(stack, '/api/v1/streaming/user', bearer('not-a-token'))
    expect([invalid.status, JSON.parse(invalid.body())]).toEqual([401, { error: 'Invalid access token' }])
    const app = await openEventStream(stack, '/api/v1/streaming/public', bearer(await stack.appToken('read')))
    expect([app.status, JSON.parse(app.body())]).toEqual([401, { error: 'Invalid access token' }])
    const user = await streamer()
    await user.revoke()
    const revoked = await openEventStream(stack, `/api/v1/streaming/user?access_token=${user.token}`)
    expect([revoked.status, JSON.parse(revoked.body())]).toEqual([401, { error: 'Invalid access token' }])
  })

  it('checks each stream’s scope: read:statuses, or read:notifications for user/notification', async () => {
    const notificationsOnly = await streamer('read:notifications')
    const statusesOnly = await streamer('read:statuses')
    const refused = { error: 'Access token does not have the required scopes' }
    for (const path of ['user', 'public', 'public/local', 'hashtag?tag=x', 'direct']) {
      const res = await openEventStream(stack, `/api/v1/streaming/${path}`, bearer(notificationsOnly.token))
      expect([path, res.status, JSON.parse(res.body())]).toEqual([path, 401, refused])
    }
    const notifications = await openEventStream(
      stack,
      '/api/v1/streaming/user/notification',
      bearer(notificationsOnly.token),
    )
    expect(notifications.status).toBe(200)
    notifications.close()
    const denied = await openEventStream(
      stack,
      '/api/v1/streaming/user/notification',
      bearer(statusesOnly.token),
    )
    expect([denied.status, JSON.parse(denied.body())]).toEqual([401, refused])
  })

  it('answers 400 for a hashtag or list stream without its parameter, 401 for a list that is not yours', async () => {
    const user = await streamer()
    const hashtag = await openEventStream(stack, '/api/v1/streaming/hashtag', bearer(user.token))
    expect([hashtag.status, JSON.parse(hashtag.body())]).toEqual([
      400,
      { error: 'Missing tag name parameter' },
    ])
    const local = await openEventStream(stack, '/api/v1/streaming/hashtag/local?tag=', bearer(user.token))
    expect([local.status, JSON.parse(local.body())]).toEqual([400, { error: 'Missing tag name parameter' }])
    const list = await openEventStream(stack, '/api/v1/streaming/list', bearer(user.token))
    expect([list.status, JSON.parse(list.body())]).toEqual([400, { error: 'Missing list name parameter' }])
    const other = await openEventStream(stack, '/api/v1/streaming/list?list=123', bearer(user.token))
    expect([other.status, JSON.parse(other.body())]).toEqual([
      401,
      { error: 'Not authorized to stream this list' },
    ])
  })

  it('answers an unknown path below /api/v1/streaming with the streaming server’s 400, token or not', async () => {
    const user = await streamer()
    for (const path of [
      '/api/v1/streaming/nope',
      '/api/v1/streaming/user/other',
      '/api/v1/streaming/public/x/y',
    ]) {
      const anonymous = await stack.api().get(path)
      expect([path, anonymous.status, anonymous.body]).toEqual([
        path,
        400,
        { error: 'Unknown channel requested' },
      ])
      expect(anonymous.headers['content-type']).toMatch(/^application\/json/)
      const signedIn = await stack.api().get(path).set(bearer(user.token))
      expect([path, signedIn.status, signedIn.body]).toEqual([
        path,
        400,
        { error: 'Unknown channel requested' },
      ])
    }
    // Known paths keep their own answers.
    await stack.api().get('/api/v1/streaming/health').expect(200, 'OK')
    const missing = await openEventStream(stack, '/api/v1/streaming/user')
    expect(missing.status).toBe(401)
  })

  it('lets a token with read:statuses (or read) stream its own list, as Mastodon: read:lists is not needed', async () => {
    const owner = await streamer('read write')
    const created = await stack
      .api()
      .post('/api/v1/lists')
      .set(bearer(owner.token))
      .send({ title: 'Friends' })
    expect(created.status).toBe(200)
    const listId = created.body.id as string
    const app = await stack.registerApp('read:statuses read:lists')
    const tokenWith = async (scope: string) => {
      const res = await stack
        .api()
        .post('/oauth/token')
        .send({
          grant_type: 'password',
          client_id: app.client_id,
          client_secret: app.client_secret,
          username: owner.email,
          password: owner.password,
          scope,
        })
        .expect(200)
      return res.body.access_token as string
    }
    for (const token of [owner.token, await tokenWith('read:statuses')]) {
      const stream = await openEventStream(stack, `/api/v1/streaming/list?list=${listId}`, bearer(token))
      expect(stream.status).toBe(200)
      stream.close()
    }
    // read:lists alone does not read statuses: Mastodon's scope error.
    const listsOnly = await openEventStream(
      stack,
      `/api/v1/streaming/list?list=${listId}`,
      bearer(await tokenWith('read:lists')),
    )
    expect([listsOnly.status, JSON.parse(listsOnly.body())]).toEqual([
      401,
      { error: 'Access token does not have the required scopes' },
    ])
    // Someone else's list, and a deleted one, are not yours to stream.
    const stranger = await streamer()
    const theirs = await openEventStream(
      stack,
      `/api/v1/streaming/list?list=${listId}`,
      bearer(stranger.token),
    )
    expect([theirs.status, JSON.parse(theirs.body())]).toEqual([
      401,
      { error: 'Not authorized to stream this list' },
    ])
    await stack.api().delete(`/api/v1/lists/${listId}`).set(bearer(owner.token)).expect(200)
    const gone = await openEventStream(stack, `/api/v1/streaming/list?list=${listId}`, bearer(owner.token))
    expect([gone.status, JSON.parse(gone.body())]).toEqual([
      401,
      { error: 'Not authorized to stream this list' },
    ])
  })

  it('streams events as `event:` and `data:` lines after the `:)` comment, with `:thump` heartbeats', async () => {
    const user = await streamer()
    const stream = await openEventStream(stack, '/api/v1/streaming/user', bearer(user.token))
    expect(stream.status).toBe(200)
    expect(stream.headers['content-type']).toBe('text/event-stream')
    expect(stream.headers['cache-control']).toBe('private, no-store')
    expect(stream.headers['access-control-allow-origin']).toBe('*')
    expect(stream.body().startsWith(':)\n')).toBe(true)
    await publish(channels.home(user.accountId), { event: 'update', payload: '{"id":"1"}' })
    await publish(channels.notifications(user.accountId), { event: 'notification', payload: '{"id":"2"}' })
    await publish(channels.home(user.accountId), { event: 'delete', payload: '1' })
    expect(await stream.inbox.next((r) => !!r.event)).toEqual({ event: 'update', payload: '{"id":"1"}' })
    expect(await stream.inbox.next((r) => !!r.event)).toEqual({
      event: 'notification',
      payload: '{"id":"2"}',
    })
    expect(await stream.inbox.next((r) => !!r.event)).toEqual({ event: 'delete', payload: '1' })
    expect(await stream.inbox.next((r) => r.comment === 'thump')).toEqual({ comment: 'thump' })
    expect(stream.body()).toContain(':thump\n\n')
    stream.close()
  })

  it('drops messages that are not events, or come without a payload but for filters_changed', async () => {
    const user = await streamer()
    const stream = await openEventStream(stack, '/api/v1/streaming/user', bearer(user.token))
    const channel = redisChannel(stack.env.REDIS_PREFIX!, channels.home(user.accountId))
    await redis.publish(channel, 'not json')
    await redis.publish(channel, JSON.stringify({ event: 'delete' }))
    await redis.publish(channel, JSON.stringify({ event: 'no.such.event', payload: 'x' }))
    await redis.publish(channel, JSON.stringify({ event: 'filters_changed' }))
    await publish(channels.home(user.accountId), { event: 'delete', payload: '7' })
    // Mastodon's documented form of a payload-less event on an event stream: `data: undefined`.
    expect(await stream.inbox.next((r) => !!r.event)).toEqual({
      event: 'filters_changed',
      payload: 'undefined',
    })
    expect(await stream.inbox.next((r) => !!r.event)).toEqual({ event: 'delete', payload: '7' })
    expect(stream.inbox.events()).toHaveLength(2)
    stream.close()
  })

  it('gives user/notification only notifications, and user notifications only with a scope for them', async () => {
    const reader = await streamer('read:statuses')
    const stream = await openEventStream(stack, '/api/v1/streaming/user', bearer(reader.token))
    expect(stack.streaming.hub.isLive(channels.notifications(reader.accountId))).toBe(false)
    stream.close()
    const full = await streamer('read')
    const notifications = await openEventStream(
      stack,
      '/api/v1/streaming/user/notification',
      bearer(full.token),
    )
    await publish(channels.home(full.accountId), { event: 'update', payload: '{"id":"3"}' })
    await publish(channels.notifications(full.accountId), { event: 'notification', payload: '{"id":"4"}' })
    expect(await notifications.inbox.next((r) => !!r.event)).toEqual({
      event: 'notification',
      payload: '{"id":"4"}',
    })
    expect(notifications.inbox.events('update')).toEqual([])
    notifications.close()
  })

  it('marks the channels it listens to as subscribed, for the publisher', async () => {
    const user = await streamer()
    const stream = await openEventStream(stack, '/api/v1/streaming/user', bearer(user.token))
    const key = subscribedKey(stack.env.REDIS_PREFIX!, channels.home(user.accountId))
    const ttl = await redis.ttl(key)
    expect(ttl).toBeGreaterThan(1000)
    expect(ttl).toBeLessThanOrEqual(1080)
    stream.close()
  })
})

describe('WebSockets', () => {
  it('refuses an upgrade without a valid token with a bare 401 and X-Error-Message', async () => {
    const missing = await refusedUpgrade(stack, '?stream=user')
    expect(missing.status).toBe(401)
    expect(missing.headers['x-error-message']).toBe('Missing access token')
    const invalid = await refusedUpgrade(stack, '?stream=user&access_token=nope')
    expect(invalid.headers['x-error-message']).toBe('Invalid access token')
    const app = await refusedUpgrade(stack, '', { protocols: [await stack.appToken('read')] })
    expect([app.status, app.headers['x-error-message']]).toEqual([401, 'Invalid access token'])
  })

  it('takes the token from the sub-protocol and echoes it back, or from the header or the query', async () => {
    const user = await streamer()
    const byProtocol = await openSocket(stack, '', { protocols: [user.token] })
    expect(byProtocol.ws.protocol).toBe(user.token)
    const byHeader = await openSocket(stack, '', { headers: bearer(user.token) })
    const byQuery = await openSocket(stack, `/?access_token=${user.token}`)
    for (const socket of [byProtocol, byHeader, byQuery])
      socket.send({ type: 'subscribe', stream: 'user:notification' })
    await live(channels.notifications(user.accountId), 3)
    await publish(channels.notifications(user.accountId), { event: 'notification', payload: '{"id":"9"}' })
    for (const socket of [byProtocol, byHeader, byQuery]) {
      expect(await socket.inbox.next()).toEqual({
        stream: ['user:notification'],
        event: 'notification',
        payload: '{"id":"9"}',
      })
      await socket.close()
    }
  })

  it('subscribes from the query and by messages, several streams on one socket, each event labelled', async () => {
    const user = await streamer()
    const socket = await openSocket(stack, `?stream=user&access_token=${user.token}`)
    socket.send({ type: 'subscribe', stream: 'hashtag', tag: 'Café' })
    socket.send({ type: 'subscribe', stream: 'public:local:media' })
    socket.send({ type: 'subscribe', stream: 'hashtag:local', tag: 'roost' })
    for (const channel of [
      channels.home(user.accountId),
      'timeline:hashtag:cafe',
      'timeline:public:local:media',
      'timeline:hashtag:roost:local',
    ])
      await live(channel)
    await publish('timeline:hashtag:cafe', { event: 'update', payload: '{"id":"10"}' })
    await publish(channels.home(user.accountId), { event: 'status.update', payload: '{"id":"11"}' })
    await publish('timeline:public:local:media', { event: 'delete', payload: '12' })
    await publish('timeline:hashtag:roost:local', { event: 'update', payload: '{"id":"13"}' })
    expect(await socket.inbox.next()).toEqual({
      stream: ['hashtag', 'Café'],
      event: 'update',
      payload: '{"id":"10"}',
    })
    expect(await socket.inbox.next()).toEqual({
      stream: ['user'],
      event: 'status.update',
      payload: '{"id":"11"}',
    })
    expect(await socket.inbox.next()).toEqual({
      stream: ['public:local:media'],
      event: 'delete',
      payload: '12',
    })
    expect(await socket.inbox.next()).toEqual({
      stream: ['hashtag:local', 'roost'],
      event: 'update',
      payload: '{"id":"13"}',
    })

    // Unsubscribing stops a stream and leaves the others; a second subscription to the same stream is ignored.
    socket.send({ type: 'subscribe', stream: 'user' })
    socket.send({ type: 'unsubscribe', stream: 'hashtag', tag: 'cafe' })
    await eventually(async () => !stack.streaming.hub.isLive('timeline:hashtag:cafe'))
    await publish('timeline:hashtag:cafe', { event: 'update', payload: '{"id":"14"}' })
    await publish(channels.home(user.accountId), { event: 'delete', payload: '15' })
    expect(await socket.inbox.next()).toEqual({ stream: ['user'], event: 'delete', payload: '15' })
    expect(socket.inbox.items.filter((m) => m.payload === '{"id":"14"}' || m.payload === '15')).toHaveLength(
      1,
    )
    await socket.close()
  })

  it('answers bad subscriptions with Mastodon’s errors on the socket, and closes on binary frames', async () => {
    const user = await streamer('read:notifications')
    const socket = await openSocket(stack, '', { protocols: [user.token] })
    socket.send({ type: 'subscribe', stream: 'nonsense' })
    expect(await socket.inbox.next()).toEqual({
      error: 'Access token does not have the required scopes',
      status: 401,
    })
    socket.send({ type: 'subscribe', stream: 'user' })
    expect(await socket.inbox.next()).toEqual({
      error: 'Access token does not have the required scopes',
      status: 401,
    })
    const reader = await streamer('read')
    const other = await openSocket(stack, '', { protocols: [reader.token] })
    other.send({ type: 'subscribe', stream: 'nonsense' })
    expect(await other.inbox.next()).toEqual({ error: 'Unknown stream type', status: 400 })
    other.send({ type: 'subscribe', stream: 'hashtag' })
    expect(await other.inbox.next()).toEqual({ error: 'Missing tag name parameter', status: 400 })
    other.send({ type: 'subscribe', stream: 'list', list: '1' })
    expect(await other.inbox.next()).toEqual({ error: 'Not authorized to stream this list', status: 401 })
    other.send({ type: 'unsubscribe', stream: 'nonsense' })
    expect(await other.inbox.next()).toEqual({ error: 'Error unsubscribing from channel' })
    // Unparsable text and unknown message types are ignored; the socket stays open.
    other.ws.send('{not json')
    other.send({ type: 'dance' })
    other.send({ type: 'subscribe', stream: 'nonsense' })
    expect(await other.inbox.next()).toEqual({ error: 'Unknown stream type', status: 400 })
    other.ws.send(Buffer.from([1, 2, 3]), { binary: true })
    expect((await other.closed).code).toBe(1003)
    await socket.close()
  })

  it('pings every interval and closes a socket that stopped answering', async () => {
    const user = await streamer()
    const answering = await openSocket(stack, '', { protocols: [user.token] })
    await new Promise<void>((resolve) => answering.ws.once('ping', () => resolve()))
    // A client that does not answer pings is cut off after the next round; one that does stays.
    const silent = await openSocket(stack, '', { protocols: [user.token], autoPong: false })
    await new Promise<void>((resolve) => silent.ws.once('ping', () => resolve()))
    expect((await silent.closed).code).toBe(1006)
    expect(answering.ws.readyState).toBe(answering.ws.OPEN)
    await answering.close()
  })

  it('refuses upgrades elsewhere than /api/v1/streaming, and answers a plain GET there with 400', async () => {
    const user = await streamer()
    const elsewhere = await refusedUpgrade(stack, '', {
      path: '/api/v1/timelines/home',
      protocols: [user.token],
    })
    expect(elsewhere.status).toBe(404)
    const plain = await stack.api().get('/api/v1/streaming').set(bearer(user.token)).expect(400)
    expect(plain.body).toEqual({ error: 'Unknown channel requested' })
    // Any path below /api/v1/streaming upgrades, as Mastodon's server accepts any path.
    const below = await openSocket(stack, '/?stream=user', { protocols: [user.token] })
    await below.close()
  })
})

describe('filtering and revocation', () => {
  it('drops a public or hashtag update for an account the publisher excluded, and only updates', async () => {
    const excluded = await streamer()
    const other = await streamer()
    const a = await openSocket(stack, '?stream=public', { protocols: [excluded.token] })
    const b = await openSocket(stack, '?stream=public', { protocols: [other.token] })
    await live(channels.public(), 2)
    await publish(channels.public(), {
      event: 'update',
      payload: '{"id":"20"}',
      exclude: [excluded.accountId],
    })
    await publish(channels.public(), { event: 'delete', payload: '20', exclude: [excluded.accountId] })
    expect(await b.inbox.next()).toMatchObject({ event: 'update', payload: '{"id":"20"}' })
    expect(await b.inbox.next()).toMatchObject({ event: 'delete' })
    expect(await a.inbox.next()).toMatchObject({ event: 'delete', payload: '20' })
    expect(a.inbox.events('update')).toEqual([])
    await a.close()
    await b.close()
  })

  it('closes a revoked token’s WebSockets and event streams, and only those', async () => {
    const user = await streamer()
    const bystander = await streamer()
    const socket = await openSocket(stack, '?stream=user', { protocols: [user.token] })
    const stream = await openEventStream(stack, '/api/v1/streaming/public', bearer(user.token))
    const untouched = await openSocket(stack, '?stream=user', { protocols: [bystander.token] })
    await live(channels.home(user.accountId))
    await user.revoke() // effective everywhere once answered
    // Both close at the next revocation check (STREAMING_REVOCATION_CHECK_MS, 500 ms); a loaded machine may take
    // longer, so the test waits for the closing rather than timing it.
    await Promise.all([socket.closed, stream.ended])
    expect(untouched.ws.readyState).toBe(untouched.ws.OPEN)
    await untouched.close()
    // And the token cannot open another one.
    const again = await refusedUpgrade(stack, '?stream=user', { protocols: [user.token] })
    expect(again.headers['x-error-message']).toBe('Invalid access token')
  })

  it('closes the streams of a login disabled or suspended, refuses new ones, and refuses a pending login', async () => {
    const disabled = await streamer()
    const suspended = await streamer()
    const bystander = await streamer()
    const socket = await openSocket(stack, '?stream=user', { protocols: [disabled.token] })
    const stream = await openEventStream(stack, '/api/v1/streaming/public', bearer(disabled.token))
    const other = await openSocket(stack, '?stream=user:notification', { protocols: [suspended.token] })
    const untouched = await openSocket(stack, '?stream=user', { protocols: [bystander.token] })
    await live(channels.home(disabled.accountId))
    await live(channels.notifications(suspended.accountId))
    // Disabling keeps the tokens: the refusal accounts publishes in Redis is what ends the streams.
    await disableUser(stack.accounts.ctx.db, disabled.accountId)
    await publishLoginState(stack.accounts.ctx, disabled.accountId)
    await Promise.all([socket.closed, stream.ended])
    const { db, revocations } = stack.accounts.ctx
    await db.transaction((trx) => suspendAccount(trx, revocations, suspended.accountId))
    await publishLoginState(stack.accounts.ctx, suspended.accountId)
    await other.closed
    expect(untouched.ws.readyState).toBe(untouched.ws.OPEN)
    await untouched.close()

    // Neither can open another stream: Mastodon's "Invalid access token", on both transports.
    for (const user of [disabled, suspended]) {
      const again = await refusedUpgrade(stack, '?stream=user', { protocols: [user.token] })
      expect(again.status).toBe(401)
      expect(again.headers['x-error-message']).toBe('Invalid access token')
      const res = await stack.api().get('/api/v1/streaming/user').set(bearer(user.token))
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ error: 'Invalid access token' })
    }

    // A sign-up waiting for approval holds a token but cannot stream with it either.
    const pending = await streamer()
    await stack.accounts.ctx.db('users').where({ id: pending.userId }).update({ approved: false })
    await publishLoginState(stack.accounts.ctx, pending.accountId)
    const refused = await refusedUpgrade(stack, '?stream=user', { protocols: [pending.token] })
    expect(refused.headers['x-error-message']).toBe('Invalid access token')
  })
})
