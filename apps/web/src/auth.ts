import { createApi } from './api'

/**
 * Signing in as any OAuth client would (docs/architecture.md, "The web app"): the app registers itself once through
 * POST /api/v1/apps and keeps its credentials in localStorage; a sign-in is the authorization code flow with PKCE
 * (S256), for the scopes of one area (the pages of /settings, or those of /admin: admin scopes are asked only
 * there); the token lives in sessionStorage, gone with the tab.
 */
export type Area = 'settings' | 'admin'

interface Client {
  client_id: string
  client_secret: string
  redirect_uri: string
  scopes: string
}

const CLIENT_KEY = 'roost.web.client'
const FLOW_KEY = 'roost.web.flow'
const tokenKey = (area: Area) => `roost.web.token.${area}`
/**
 * What the registered app may ever ask: every scope of every page (the server checks a request's scopes against
 * the app's literally, as Mastodon's Doorkeeper does); each sign-in asks only its area's part of it. Set by main.
 */
let appScopes = ''
export const setAppScopes = (scopes: string) => {
  appScopes = scopes
}
export const CALLBACK_PATH = '/web/callback'

export async function client(): Promise<Client> {
  const redirect = `${location.origin}${CALLBACK_PATH}`
  const saved = localStorage.getItem(CLIENT_KEY)
  if (saved) {
    const parsed = JSON.parse(saved) as Client
    // Registered again when the pages came to need other scopes, or the app moved.
    if (parsed.redirect_uri === redirect && parsed.scopes === appScopes) return parsed
  }
  const app = await createApi(undefined).send<Client>('POST', '/api/v1/apps', {
    client_name: 'Roost web',
    redirect_uris: redirect,
    scopes: appScopes,
    website: location.origin,
  })
  const registered = {
    client_id: app.client_id,
    client_secret: app.client_secret,
    redirect_uri: redirect,
    scopes: appScopes,
  }
  localStorage.setItem(CLIENT_KEY, JSON.stringify(registered))
  return registered
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
const random = (n: number) => base64url(crypto.getRandomValues(new Uint8Array(n)))

/** An area's token, and the scopes its sign-in asked (the server may grant fewer: no admin scopes to non-staff). */
export function storedToken(area: Area): { token: string; asked: string } | undefined {
  const saved = sessionStorage.getItem(tokenKey(area))
  return saved ? JSON.parse(saved) : undefined
}

export function forgetToken(area: Area) {
  sessionStorage.removeItem(tokenKey(area))
}

/** Off to the server's authorization page; back at CALLBACK_PATH, then at `returnTo`. */
export async function signIn(area: Area, scope: string, returnTo: string) {
  const app = await client()
  const verifier = random(32)
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  const state = random(16)
  sessionStorage.setItem(FLOW_KEY, JSON.stringify({ state, verifier, area, scope, returnTo }))
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: app.redirect_uri,
    scope,
    state,
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: 'S256',
  })
  location.assign(`/oauth/authorize?${query}`)
}

/** The callback: checks the state, trades the code for a token, and says where to go back. */
export async function finishSignIn(params: URLSearchParams): Promise<string> {
  const flow = JSON.parse(sessionStorage.getItem(FLOW_KEY) ?? 'null') as {
    state: string
    verifier: string
    area: Area
    scope: string
    returnTo: string
  } | null
  sessionStorage.removeItem(FLOW_KEY)
  if (params.get('error')) throw new Error(params.get('error_description') ?? 'The sign-in was refused.')
  if (!flow || flow.state !== params.get('state'))
    throw new Error('This sign-in was not started here, or has already been used.')
  const app = await client()
  const token = await createApi(undefined).send<{ access_token: string; scope: string }>(
    'POST',
    '/oauth/token',
    {
      grant_type: 'authorization_code',
      code: params.get('code'),
      code_verifier: flow.verifier,
      redirect_uri: app.redirect_uri,
      client_id: app.client_id,
      client_secret: app.client_secret,
    },
  )
  sessionStorage.setItem(
    tokenKey(flow.area),
    JSON.stringify({ token: token.access_token, asked: flow.scope }),
  )
  return flow.returnTo
}

/** Signs out of an area: the token is revoked at the server and forgotten here. */
export async function signOut(area: Area) {
  const saved = storedToken(area)
  forgetToken(area)
  if (!saved) return
  const app = await client()
  await createApi(undefined)
    .send('POST', '/oauth/revoke', {
      token: saved.token,
      client_id: app.client_id,
      client_secret: app.client_secret,
    })
    .catch(() => {})
}

/** An app token (client credentials), for what a visitor does before having an account: signing up. */
export async function appToken(scope: string): Promise<string> {
  const app = await client()
  const token = await createApi(undefined).send<{ access_token: string }>('POST', '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: app.client_id,
    client_secret: app.client_secret,
    scope,
  })
  return token.access_token
}
