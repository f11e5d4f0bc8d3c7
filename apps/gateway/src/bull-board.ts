import { createHash, randomBytes } from 'node:crypto'
import { Router } from 'express'
import type { Express, Request, RequestHandler, Response } from 'express'
import { createBullBoard } from '@bull-board/api'
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter'
import { ExpressAdapter } from '@bull-board/express'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { bearerToken, permits } from '@roost/auth'
import type { AccessToken, TokenVerifier } from '@roost/auth'
import { bullPrefix, QUEUES } from '@roost/events'
import { forbidden, HttpError, invalidToken, outsideScopes, serviceUnavailable } from '@roost/service'
import type { Logger } from '@roost/service'
import type { GatewayConfig } from './config'

export const BOARD_PATH = '/admin/queues'
const TOKEN_COOKIE = 'roost_admin_token'
const LOGIN_COOKIE = 'roost_admin_login'

/**
 * Bull Board at /admin/queues, for administrators only: a **user** token (an app token has no user, so it is never
 * an admin's, whatever scopes it holds) with `admin:read`, whose user accounts confirms is an admin right now
 * (the role may have changed since the token was issued). API clients send it as `Authorization: Bearer`;
 * browsers sign in through the gateway acting as an OAuth client of accounts (authorization code + PKCE), and
 * keep the token in an HttpOnly cookie scoped to the board. Read-only unless BULL_BOARD_READ_ONLY=false;
 * changes then need `admin:write` and a same-origin request. Job data is shown without the private text of
 * notifications (docs/security.md).
 */
export function mountBullBoard(
  app: Express,
  options: { config: GatewayConfig; verify: TokenVerifier; logger: Logger },
) {
  const { config, verify, logger } = options
  if (!config.BULL_BOARD) return { close: async () => {} }
  const readOnly = config.BULL_BOARD_READ_ONLY
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2 })
  const prefix = bullPrefix(config.REDIS_PREFIX)
  const queues = Object.values(QUEUES).map((name) => new Queue(name, { connection: redis, prefix }))
  const adapters = queues.map((queue) => {
    const adapter = new BullMQAdapter(queue, { readOnlyMode: readOnly })
    adapter.setFormatter('data', withoutPrivateText)
    return adapter
  })

  const serverAdapter = new ExpressAdapter()
  serverAdapter.setBasePath(BOARD_PATH)
  createBullBoard({
    queues: adapters,
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Roost queues' } },
  })

  const publicUrl = config.PUBLIC_URL.replace(/\/+$/, '')
  const secure = publicUrl.startsWith('https:')
  const redirectUri = `${publicUrl}${BOARD_PATH}/callback`
  const scope = readOnly ? 'admin:read' : 'admin:read admin:write'
  const client = oauthClient(config, redirectUri, scope)
  const admins = adminCheck(config)

  const cookie = (name: string, value: string, maxAge: number) =>
    `${name}=${value}; Path=${BOARD_PATH}; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? '; Secure' : ''}`

  const router = Router()
  router.get('/login', async (_req, res) => {
    const { clientId } = await client.get()
    const state = randomBytes(16).toString('base64url')
    const verifier = randomBytes(32).toString('base64url')
    const challenge = createHash('sha256').update(verifier).digest('base64url')
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope,
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })
    res.set('Cache-Control', 'no-store')
    res.set('Set-Cookie', cookie(LOGIN_COOKIE, `${state}.${verifier}`, 600))
    res.redirect(302, `/oauth/authorize?${query}`)
  })

  router.get('/callback', async (req, res) => {
    const [state, verifier] = (readCookie(req, LOGIN_COOKIE) ?? '').split('.')
    const code = typeof req.query.code === 'string' ? req.query.code : undefined
    res.set('Cache-Control', 'no-store')
    if (!state || !verifier || req.query.state !== state || !code)
      return page(res, 403, 'The sign-in did not complete. <a href="login">Try again</a>.')
    const { clientId, clientSecret } = await client.get()
    const exchange = await fetch(new URL('/oauth/token', config.ACCOUNTS_URL), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        client_secret: clientSecret,
        code_verifier: verifier,
      }),
    })
    const body = (await exchange.json().catch(() => ({}))) as { access_token?: string }
    const token = body.access_token ? await verify(body.access_token) : undefined
    if (!token?.ok || !(await admins.isAdmin(token.token)))
      return page(res, 403, 'Only administrators may see the queues. <a href="login">Sign in again</a>.')
    res.set('Set-Cookie', [
      cookie(LOGIN_COOKIE, '', 0),
      cookie(TOKEN_COOKIE, body.access_token!, 7 * 24 * 3600),
    ])
    res.redirect(303, `${BOARD_PATH}/`)
  })

  router.get('/logout', (_req, res) => {
    res.set('Set-Cookie', cookie(TOKEN_COOKIE, '', 0))
    page(res, 200, 'Signed out. <a href="login">Sign in</a>.')
  })

  const requireAdmin: RequestHandler = async (req, res, next) => {
    const header = bearerToken(req.headers.authorization)
    const raw = header ?? readCookie(req, TOKEN_COOKIE)
    const result = raw ? await verify(raw) : undefined
    if (!result?.ok) {
      if (!header && req.method === 'GET' && req.accepts(['json', 'html']) === 'html')
        return res.redirect(302, `${BOARD_PATH}/login`)
      throw invalidToken()
    }
    const token: AccessToken = result.token
    if (!permits(token.scopes, ['admin:read'])) throw outsideScopes()
    if (!(await admins.isAdmin(token))) throw forbidden()
    if (!['GET', 'HEAD'].includes(req.method)) {
      if (!permits(token.scopes, ['admin:write'])) throw outsideScopes()
      // A cookie rides along on cross-site requests too: changes must come from the board's own pages.
      if (!header && req.headers.origin !== new URL(publicUrl).origin)
        throw new HttpError(403, 'This action is not allowed')
    }
    next()
  }

  app.use(BOARD_PATH, router, requireAdmin, serverAdapter.getRouter())
  logger.debug({ path: BOARD_PATH, readOnly }, 'bull board mounted')
  return {
    async close() {
      await Promise.all(queues.map((queue) => queue.close()))
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}

/** How long a verdict on a token is remembered: the board polls every few seconds. */
const ADMIN_VERDICT_MS = 10_000

/**
 * Whether a token belongs to a user who may see the queues now, as accounts sees it: GET /api/v1/admin/queues
 * answers 200 only to a user token with a usable login whose role holds `view_devops` (Mastodon's permission for
 * its Sidekiq dashboard; the Owner role, or any role given it: docs/moderation.md). App tokens are refused before
 * asking.
 */
function adminCheck(config: GatewayConfig) {
  const verdicts = new Map<string, { admin: boolean; until: number }>()
  return {
    async isAdmin(token: AccessToken): Promise<boolean> {
      if (!token.userId || !permits(token.scopes, ['admin:read'])) return false
      const known = verdicts.get(token.tokenId)
      if (known && known.until > Date.now()) return known.admin
      const res = await fetch(new URL('/api/v1/admin/queues', config.ACCOUNTS_URL), {
        headers: { Authorization: `Bearer ${token.raw}` },
      }).catch(() => undefined)
      if (!res || res.status >= 500) throw serviceUnavailable()
      await res.body?.cancel()
      const admin = res.status === 200
      if (verdicts.size >= 1000) verdicts.clear()
      verdicts.set(token.tokenId, { admin, until: Date.now() + ADMIN_VERDICT_MS })
      return admin
    },
  }
}

/** Notification text (direct messages, mentions) is the recipients' business, not the operators': hidden. */
function withoutPrivateText(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(withoutPrivateText)
  if (!data || typeof data !== 'object') return data
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) =>
      key === 'excerpt' && typeof value === 'string'
        ? [key, `[${value.length} characters hidden]`]
        : [key, withoutPrivateText(value)],
    ),
  )
}

/**
 * The board's OAuth client: BULL_BOARD_CLIENT_ID/SECRET when configured (needed with several gateway replicas,
 * so a callback can land on any of them); otherwise an app registered with accounts on first sign-in.
 */
function oauthClient(config: GatewayConfig, redirectUri: string, scope: string) {
  let registered: Promise<{ clientId: string; clientSecret: string }> | undefined
  const register = async () => {
    const res = await fetch(new URL('/api/v1/apps', config.ACCOUNTS_URL), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Roost queues', redirect_uris: redirectUri, scopes: scope }),
    })
    if (!res.ok) throw serviceUnavailable()
    const app = (await res.json()) as { client_id: string; client_secret: string }
    return { clientId: app.client_id, clientSecret: app.client_secret }
  }
  return {
    get() {
      if (config.BULL_BOARD_CLIENT_ID)
        return Promise.resolve({
          clientId: config.BULL_BOARD_CLIENT_ID,
          clientSecret: config.BULL_BOARD_CLIENT_SECRET,
        })
      registered ??= register().catch((err) => {
        registered = undefined // try again on the next sign-in
        throw err
      })
      return registered
    },
  }
}

function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=') || undefined
  }
  return undefined
}

function page(res: Response, status: number, html: string) {
  res.status(status).type('html').send(`<!doctype html><title>Roost queues</title><p>${html}</p>`)
}
