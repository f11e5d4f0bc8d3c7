import { randomBytes } from 'node:crypto'
import type { Request, Response } from 'express'
import { parseScopes } from '@roost/auth'
import { createAppParams, readParams } from '@roost/routes'
import { unprocessable } from '@roost/service'
import type { AccountsContext } from '../context'
import type { ApplicationRow } from '../db/rows'

export const OOB_REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob'
const FORBIDDEN_SCHEMES = new Set(['data:', 'vbscript:', 'javascript:'])

export const redirectUris = (app: ApplicationRow) => app.redirect_uri.split('\n').filter(Boolean)

/** Mastodon's Application entity (docs: entities/Application). */
function applicationEntity(app: ApplicationRow, vapidKey: string) {
  return {
    id: app.id,
    name: app.name,
    website: app.website,
    scopes: app.scopes.split(' '),
    redirect_uris: redirectUris(app),
    redirect_uri: app.redirect_uri,
    vapid_key: vapidKey,
  }
}

function validRedirectUri(uri: string): boolean {
  if (uri === OOB_REDIRECT_URI) return true
  try {
    const url = new URL(uri)
    return !FORBIDDEN_SCHEMES.has(url.protocol) && !url.hash && !uri.includes('#')
  } catch {
    return false
  }
}

/** POST /api/v1/apps — register a client (docs/mastodon-compatibility.md, "OAuth"). */
export async function createApplication(ctx: AccountsContext, req: Request, res: Response) {
  const p = readParams(req, createAppParams)
  const name = typeof p.client_name === 'string' ? p.client_name.trim() : ''
  if (!name) throw unprocessable("Validation failed: Application name can't be blank")
  if (name.length > 60)
    throw unprocessable('Validation failed: Application name is too long (maximum is 60 characters)')

  const rawUris = Array.isArray(p.redirect_uris) ? p.redirect_uris : [p.redirect_uris]
  const uris = rawUris
    .flatMap((u) => (typeof u === 'string' ? u.split(/\s+/) : []))
    .map((u) => u.trim())
    .filter(Boolean)
  if (!uris.length) throw unprocessable("Validation failed: Redirect URI can't be blank")
  if (!uris.every(validRedirectUri))
    throw unprocessable('Validation failed: Redirect URI must be an absolute URI.')
  const redirectUri = uris.join('\n')
  if (redirectUri.length > 2000) throw unprocessable('Validation failed: Redirect URI is too long')

  // An array `scopes` is not a permitted param in Mastodon: it falls back to the default, `read`.
  const scopes = typeof p.scopes === 'string' && p.scopes.trim() ? parseScopes(p.scopes) : ['read']
  if (!scopes) throw unprocessable("Validation failed: Scopes doesn't match those configured on the server.")

  let website: string | null = null
  if (typeof p.website === 'string' && p.website.trim()) {
    website = p.website.trim()
    let ok = false
    try {
      const url = new URL(website)
      ok = (url.protocol === 'https:' || url.protocol === 'http:') && !!url.host && website.length <= 2000
    } catch {
      ok = false
    }
    if (!ok) throw unprocessable('Validation failed: Website is invalid')
  }

  const [app] = await ctx
    .db<ApplicationRow>('oauth_applications')
    .insert({
      name,
      website,
      redirect_uri: redirectUri,
      scopes: scopes.join(' '),
      client_id: randomBytes(32).toString('base64url'),
      client_secret: randomBytes(32).toString('base64url'),
    })
    .returning('*')
  res.json({
    ...applicationEntity(app!, ctx.config.VAPID_PUBLIC_KEY),
    client_id: app!.client_id,
    client_secret: app!.client_secret,
    client_secret_expires_at: 0,
  })
}

/** GET /api/v1/apps/verify_credentials — any valid token of the app, no scope needed. */
export async function verifyApplication(ctx: AccountsContext, req: Request, res: Response) {
  const app = await ctx
    .db<ApplicationRow>('oauth_applications')
    .where({ client_id: req.token!.clientId })
    .first()
  if (!app) throw unprocessable('The application no longer exists')
  res.json(applicationEntity(app, ctx.config.VAPID_PUBLIC_KEY))
}
