// Live updates as apps receive them, through the gateway: masto.js 7's streaming client, megalodon 10's streaming,
// and a page in headless Chromium opening a WebSocket with the token as its sub-protocol (docs/streaming.md).
// Functional tests: they wait generously for each event and check its content; how fast events travel is
// measured by `npm run bench` (docs/performance.md), not asserted here.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRestAPIClient, createStreamingAPIClient } from 'masto'
import type { mastodon } from 'masto'
import generator from 'megalodon'
import type { Entity } from 'megalodon'
import type { Browser } from 'playwright-core'
import { channels } from '@roost/events'
import { launchChromium } from '@roost/testing'
import { eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { post, reader } from '../feeds/helpers'
import type { TestUser } from '../feeds/helpers'
import { Inbox } from '../streaming/helpers'

/** How long an event may take on a loaded shared machine before the test gives up on it. */
const WAIT = 30_000

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
}, 60_000)
afterAll(() => stack?.stop())

/** Resolves once this process's streaming service delivers `channel` to `listeners` connections. */
const live = (channel: string, listeners = 1) =>
  eventually(async () => stack.streaming.hub.isLive(channel, listeners), WAIT)

/** A reader following a fresh author, and a third account to mention the reader. */
async function cast() {
  const author = await reader(stack)
  const viewer = await reader(stack)
  const mentioner = await reader(stack)
  await viewer.post(`/api/v1/accounts/${author.id}/follow`).expect(200)
  await stack.drain()
  return { author, viewer, mentioner }
}

const remove = (user: TestUser, id: string) => user.delete(`/api/v1/statuses/${id}`).expect(200)

describe('masto.js: createStreamingAPIClient', () => {
  /** Everything a masto.js subscription yields, until the client closes. */
  function collect(subscription: mastodon.streaming.Subscription) {
    const inbox = new Inbox<mastodon.streaming.Event>()
    void (async () => {
      for await (const event of subscription) inbox.push(event)
    })().catch(() => {}) // closing the client ends the iteration with an error
    return inbox
  }

  it('receives update, notification and delete on user, and update and delete on hashtag', async () => {
    const { author, viewer, mentioner } = await cast()
    const rest = createRestAPIClient({ url: stack.url, accessToken: viewer.token, timeout: 10_000 })
    // As apps find it: the streaming URL of the instance document.
    const instance = await rest.v2.instance.fetch()
    expect(instance.configuration.urls.streaming).toBe(stack.url.replace(/^http/, 'ws'))
    const streaming = createStreamingAPIClient({
      streamingApiUrl: instance.configuration.urls.streaming,
      accessToken: viewer.token,
      retry: false,
    })
    try {
      const user = collect(streaming.user.subscribe())
      const tag = collect(streaming.hashtag.subscribe({ tag: 'MastoLive' }))
      await live(channels.notifications(viewer.id))
      await live(channels.hashtag('mastolive'))

      const id = await post(author, 'live from the author #MastoLive')
      const update = await user.next((e) => e.event === 'update' && e.payload.id === id, WAIT)
      expect(update.stream).toEqual(['user'])
      expect(update.payload).toMatchObject({
        id,
        content: expect.stringContaining('live from the author'),
        account: { id: author.id, username: author.username },
        favourited: false,
      })
      const tagged = await tag.next((e) => e.event === 'update', WAIT)
      expect(tagged.stream).toEqual(['hashtag', 'MastoLive'])
      expect(tagged.payload).toMatchObject({ id, tags: [{ name: 'mastolive' }] })

      const mention = await post(mentioner, `hello @${viewer.username}`)
      const notification = await user.next((e) => e.event === 'notification', WAIT)
      expect(notification.payload).toMatchObject({
        type: 'mention',
        account: { id: mentioner.id },
        status: { id: mention, mentions: [{ id: viewer.id }] },
      })

      await remove(author, id)
      expect(await user.next((e) => e.event === 'delete', WAIT)).toEqual({
        stream: ['user'],
        event: 'delete',
        payload: id,
      })
      expect((await tag.next((e) => e.event === 'delete', WAIT)).payload).toBe(id)
    } finally {
      streaming.close()
    }
  })
})

describe('megalodon: streaming', () => {
  /** Every event a megalodon stream emits, named. */
  function collect(stream: Awaited<ReturnType<ReturnType<typeof generator>['userStreaming']>>) {
    const inbox = new Inbox<{ event: string; payload: unknown }>()
    for (const event of ['update', 'notification', 'delete', 'status_update', 'conversation'])
      stream.on(event, (payload: unknown) => inbox.push({ event, payload }))
    // megalodon emits connection errors as 'error' events, which would throw without a listener.
    stream.on('error', () => {})
    return inbox
  }

  it('receives update, notification and delete on user, and update on hashtag', async () => {
    const { author, viewer, mentioner } = await cast()
    const client = generator('mastodon', stack.url, viewer.token, 'roost-e2e')
    // megalodon reads urls.streaming_api of the v1 instance document and sends the token as access_token.
    const userStream = await client.userStreaming()
    const tagStream = await client.tagStreaming('MegalodonLive')
    try {
      const user = collect(userStream)
      const tag = collect(tagStream)
      await live(channels.notifications(viewer.id))
      await live(channels.hashtag('megalodonlive'))

      const id = await post(author, 'streamed to megalodon #MegalodonLive')
      const update = await user.next(
        (e) => e.event === 'update' && (e.payload as Entity.Status).id === id,
        WAIT,
      )
      expect(update.payload).toMatchObject({
        id,
        content: expect.stringContaining('streamed to megalodon'),
        account: { id: author.id, username: author.username },
      })
      const tagged = await tag.next((e) => e.event === 'update', WAIT)
      expect(tagged.payload).toMatchObject({ id, tags: [{ name: 'megalodonlive' }] })

      const mention = await post(mentioner, `hi @${viewer.username}`)
      const notification = await user.next((e) => e.event === 'notification', WAIT)
      expect(notification.payload).toMatchObject({
        type: 'mention',
        account: { id: mentioner.id },
        status: { id: mention },
      })

      await remove(author, id)
      expect((await user.next((e) => e.event === 'delete', WAIT)).payload).toBe(id)
    } finally {
      userStream.stop()
      tagStream.stop()
    }
  })
})

/** A page of the test's own: finds the streaming URL as a web app does and opens a WebSocket with the token. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>Live</title><script>
window.received = []
window.connect = async (server, token) => {
  const instance = await (await fetch(server + '/api/v2/instance')).json()
  const ws = new WebSocket(instance.configuration.urls.streaming + '/api/v1/streaming', token)
  ws.onmessage = (event) => window.received.push(JSON.parse(event.data))
  await new Promise((resolve, reject) => {
    ws.onopen = resolve
    ws.onerror = () => reject(new Error('the WebSocket failed'))
  })
  ws.send(JSON.stringify({ type: 'subscribe', stream: 'user' }))
  window.socket = ws
  return ws.protocol
}
</script>`

describe('a browser (headless Chromium)', () => {
  let browser: Browser
  let server: http.Server
  let origin: string
  beforeAll(async () => {
    browser = await launchChromium()
    server = http.createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    // localhost: another origin than the server's, as a web client's page is.
    origin = `http://localhost:${(server.address() as AddressInfo).port}`
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => server?.close(resolve))
  })

  it('opens a WebSocket with the token as sub-protocol (echoed back) and receives update and notification', async () => {
    const { author, viewer, mentioner } = await cast()
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.goto(origin)
      type Window = { connect(server: string, token: string): Promise<string>; received: unknown[] }
      const protocol = await page.evaluate(
        ([server, token]) => (globalThis as unknown as Window).connect(server!, token!),
        [stack.url, viewer.token],
      )
      // Without the echo the browser would have failed the connection.
      expect(protocol).toBe(viewer.token)
      await live(channels.notifications(viewer.id))

      const id = await post(author, 'to the browser')
      const mention = await post(mentioner, `browser @${viewer.username}`)
      const received = async () =>
        (await page.evaluate(() => (globalThis as unknown as Window).received)) as {
          stream: string[]
          event: string
          payload: string
        }[]
      const events = await eventually(async () => {
        const all = await received()
        const seen = all.some((m) => m.event === 'update') && all.some((m) => m.event === 'notification')
        return seen ? all : undefined
      }, WAIT)
      const update = events.find((m) => m.event === 'update')!
      expect(update.stream).toEqual(['user'])
      expect(JSON.parse(update.payload)).toMatchObject({ id, account: { id: author.id } })
      const notification = events.find((m) => m.event === 'notification')!
      expect(JSON.parse(notification.payload)).toMatchObject({
        type: 'mention',
        account: { id: mentioner.id },
        status: { id: mention },
      })
    } finally {
      await context.close()
    }
  })
})
