import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
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

/** The signed-in user's id and when the session began, if the cookie is genuine and not expired. */
export function readSession(req: Request, secret: string): { userId: string; startedAt: number } | undefined {
  const value = readCookie(req, COOKIE)
  const [userId, expires, signature] = value?.split('.') ?? []
  if (!userId || !expires || !signature) return undefined
  if (!equal(signature, mac(secret, `${userId}.${expires}`)) || Number(expires) < Date.now()) return undefined
  return { userId, startedAt: Number(expires) - LIFETIME_MS }
}

export const sessionUserId = (req: Request, secret: string): string | undefined =>
  readSession(req, secret)?.userId

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

/**
 * Before sign-in, a visitor has no session: the sign-in form's CSRF token is bound to a random visitor id kept
 * in its own HttpOnly cookie, set with the form. A token that was the same for every visitor let another site
 * sign a victim in as the attacker (login CSRF); now a forged form lacks the victim's visitor id.
 */
const VISITOR_COOKIE = 'roost_visitor'
const VISITOR_ID = /^[\w-]{43}$/

/** What the form's CSRF token is bound to: the session cookie, else the visitor id; undefined if neither. */
function csrfSubject(req: Request): string | undefined {
  const session = readCookie(req, COOKIE)
  if (session) return `session:${session}`
  const visitor = readCookie(req, VISITOR_COOKIE)
  return visitor && VISITOR_ID.test(visitor) ? `visitor:${visitor}` : undefined
}

/**
 * A CSRF token for the page being rendered; gives the visitor an id first when it has neither cookie, sent back
 * only to the pages below `path` (the OAuth pages', or /auth for the password pages).
 */
export function csrfToken(
  req: Request,
  res: Response,
  secret: string,
  secure: boolean,
  path = '/oauth',
): string {
  let subject = csrfSubject(req)
  if (!subject) {
    const visitor = randomBytes(32).toString('base64url')
    res.cookie(VISITOR_COOKIE, visitor, { httpOnly: true, sameSite: 'lax', secure, path })
    subject = `visitor:${visitor}`
  }
  return mac(secret, `csrf:${subject}`)
}

export function validCsrf(req: Request, secret: string, token: unknown): boolean {
  const subject = csrfSubject(req)
  return typeof token === 'string' && !!subject && equal(token, mac(secret, `csrf:${subject}`))
}

/**
 * Between the password and the second factor (docs/security.md, "Two-factor sign-in"): a cookie
 * `<user id>.<expiry>.<HMAC>` saying the password was right, for 5 minutes. It opens nothing by itself: only the
 * second factor turns it into a sign-in session.
 */
const PENDING_COOKIE = 'roost_two_factor'
const PENDING_LIFETIME_MS = 5 * 60 * 1000

export function startPendingSignIn(res: Response, secret: string, userId: string, secure: boolean) {
  const payload = `${userId}.${Date.now() + PENDING_LIFETIME_MS}`
  res.cookie(PENDING_COOKIE, `${payload}.${mac(secret, `pending:${payload}`)}`, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: PENDING_LIFETIME_MS,
  })
}

/** The user whose password was right, if the pending cookie is genuine and not expired. */
export function pendingSignInUserId(req: Request, secret: string): string | undefined {
  const [userId, expires, signature] = readCookie(req, PENDING_COOKIE)?.split('.') ?? []
  if (!userId || !expires || !signature) return undefined
  if (!equal(signature, mac(secret, `pending:${userId}.${expires}`)) || Number(expires) < Date.now())
    return undefined
  return userId
}

export const endPendingSignIn = (res: Response) => res.clearCookie(PENDING_COOKIE, { path: '/' })
