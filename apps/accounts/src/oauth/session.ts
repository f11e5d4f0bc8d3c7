import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Request, Response } from 'express'

/**
 * The sign-in session of the OAuth pages: a cookie `<user id>.<expiry>.<HMAC>`, nothing stored server-side.
 * Forms carry a CSRF token derived from the same secret and session.
 */
const COOKIE = 'roost_session'
const LIFETIME_MS = 24 * 3600 * 1000

const mac = (secret: string, value: string) => createHmac('sha256', secret).update(value).digest('base64url')

const equal = (a: string, b: string) => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)]
  return x.length === y.length && timingSafeEqual(x, y)
}

/** A cookie's value; a malformed one (bad percent-encoding) reads as absent, never as an error. */
function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=')
    if (k !== name) continue
    try {
      return decodeURIComponent(v.join('='))
    } catch {
      return undefined
    }
  }
  return undefined
}

export function sessionUserId(req: Request, secret: string): string | undefined {
  const value = readCookie(req, COOKIE)
  const [userId, expires, signature] = value?.split('.') ?? []
  if (!userId || !expires || !signature) return undefined
  if (!equal(signature, mac(secret, `${userId}.${expires}`)) || Number(expires) < Date.now()) return undefined
  return userId
}

export function startSession(res: Response, secret: string, userId: string, secure: boolean) {
  const payload = `${userId}.${Date.now() + LIFETIME_MS}`
  res.cookie(COOKIE, `${payload}.${mac(secret, payload)}`, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: LIFETIME_MS,
  })
}

/** A CSRF token bound to the session (or to "anonymous" on the sign-in form). */
export const csrfToken = (req: Request, secret: string) =>
  mac(secret, `csrf:${readCookie(req, COOKIE) ?? 'anonymous'}`)

export const validCsrf = (req: Request, secret: string, token: unknown) =>
  typeof token === 'string' && equal(token, csrfToken(req, secret))
