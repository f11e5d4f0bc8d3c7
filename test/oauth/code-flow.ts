import { createHash, randomBytes } from 'node:crypto'
import type { Stack } from '../stack'

export const OOB = 'urn:ietf:wg:oauth:2.0:oob'

/** A PKCE pair (RFC 7636, S256). */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

const unescapeHtml = (s: string) =>
  s.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e as 'amp']!,
  )

/** The hidden fields of the page's form, as a browser would post them. */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields[unescapeHtml(m[1]!)] = unescapeHtml(m[2]!)
  return fields
}

/**
 * Walks the authorization pages through the gateway as a browser would: open /oauth/authorize, sign in, then
 * approve or deny. Resolves with the final response (a redirect, or a page for the out-of-band flow).
 */
export async function authorize(
  stack: Stack,
  o: {
    query: Record<string, string>
    user: { email: string; password: string }
    action?: 'approve' | 'deny'
  },
) {
  const query = new URLSearchParams(o.query).toString()
  const signInPage = await stack.api().get(`/oauth/authorize?${query}`).expect(200)
  expect(signInPage.text).toContain('Sign in')
  const signedIn = await stack
    .api()
    .post('/oauth/authorize')
    .set('Cookie', visitorCookie(signInPage))
    .type('form')
    .send({ ...hiddenFields(signInPage.text), email: o.user.email, password: o.user.password })
    .expect(303)
  const cookie = signedIn.headers['set-cookie']![0]!.split(';')[0]!
  const consent = await stack.api().get(signedIn.headers.location!).set('Cookie', cookie)
  if (consent.status !== 200) return consent // e.g. a refused scope redirects here
  expect(consent.text).toContain('Authorize')
  return stack
    .api()
    .post('/oauth/authorize')
    .set('Cookie', cookie)
    .type('form')
    .send({ ...hiddenFields(consent.text), action: o.action ?? 'approve' })
}

/** The visitor cookie the sign-in form sets, which its CSRF token is bound to (login CSRF). */
export const visitorCookie = (page: { headers: Record<string, unknown> }) =>
  (page.headers['set-cookie'] as string[] | undefined)
    ?.find((c) => c.startsWith('roost_visitor='))
    ?.split(';')[0] ?? ''

/** The query of a redirect's Location. */
export const redirectQuery = (location: string) => Object.fromEntries(new URL(location).searchParams)
