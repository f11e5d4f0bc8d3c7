import type { Stack } from '../stack'

let addresses = 0
/** A fresh client address for each use (documentation ranges), so every test has budgets of its own. */
export const newIpv4 = () => `198.18.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`

/** Registers an app from `ip` (sent in X-Forwarded-For through the trusted loopback proxy). */
export async function registerAppFrom(stack: Stack, ip: string, scopes: string) {
  const res = await stack
    .api()
    .post('/api/v1/apps')
    .set('X-Forwarded-For', ip)
    .send({ client_name: 'abuse tests', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes })
    .expect(200)
  return res.body as { client_id: string; client_secret: string }
}

/** A password-grant token for `user` on `client` (/oauth is not rate limited). */
export async function tokenFor(
  stack: Stack,
  client: { client_id: string; client_secret: string },
  user: { email: string; password: string },
  scope: string,
) {
  const res = await stack
    .api()
    .post('/oauth/token')
    .send({ grant_type: 'password', ...client, username: user.email, password: user.password, scope })
    .expect(200)
  return res.body.access_token as string
}

/** Waits (if needed) for a fresh fixed window of `periodMs`, so a burst of requests fits inside one window. */
export async function atWindowStart(periodMs: number) {
  const left = periodMs - (Date.now() % periodMs)
  if (left < periodMs * 0.6) await new Promise((resolve) => setTimeout(resolve, left + 20))
}
