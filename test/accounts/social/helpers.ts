import type { Stack } from '../../stack'
export { eventually } from '../../stack'

/** A signed-in test user: its account id, a token with `scope`, and request helpers through the gateway. */
export async function signUp(stack: Stack, options: { scope?: string; username?: string } = {}) {
  const user = await stack.createUser(options.username ? { username: options.username } : {})
  const token = await stack.userToken(options.scope ?? 'read write follow', user)
  const auth = `Bearer ${token}`
  return {
    ...user,
    id: user.accountId,
    token,
    get: (path: string) => stack.api().get(path).set('Authorization', auth),
    post: (path: string, body?: object) => {
      const req = stack.api().post(path).set('Authorization', auth)
      return body ? req.send(body) : req
    },
    delete: (path: string) => stack.api().delete(path).set('Authorization', auth),
  }
}
export type TestUser = Awaited<ReturnType<typeof signUp>>

/** Posts a status and returns its id. */
export async function post(user: TestUser, body: object | string): Promise<string> {
  const res = await user
    .post('/api/v1/statuses', typeof body === 'string' ? { status: body } : body)
    .expect(200)
  return res.body.id as string
}

/** The Link header as `{ next, prev }` URLs. */
export function links(header: string | undefined): { next?: string; prev?: string } {
  const out: { next?: string; prev?: string } = {}
  for (const part of (header ?? '').split(', ')) {
    const m = /^<([^>]+)>; rel="(next|prev)"$/.exec(part)
    if (m) out[m[2] as 'next' | 'prev'] = m[1]
  }
  return out
}

/** The path and query of an absolute Link URL on the stack, checking that it is absolute on stack.url. */
export function onStack(stack: Stack, url: string): string {
  if (!url.startsWith(`${stack.url}/`)) throw new Error(`${url} is not on ${stack.url}`)
  return url.slice(stack.url.length)
}

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)
