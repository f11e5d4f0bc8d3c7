import type { Stack } from '../stack'
import type { TestUser } from '../accounts/social/helpers'
import { signUp } from '../accounts/social/helpers'

export { links, post, signUp } from '../accounts/social/helpers'
export type { TestUser } from '../accounts/social/helpers'

/**
 * A timeline as its owner reads it once the workers are done: a feed still being built (206) is read again
 * after the rebuild, and the answer must then be 200.
 */
export async function timeline(stack: Stack, user: TestUser, path = '/api/v1/timelines/home') {
  await stack.drain()
  let res = await user.get(path)
  if (res.status === 206) {
    await stack.drain()
    res = await user.get(path)
  }
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`)
  return res
}

/** The status ids of a timeline, newest first. */
export const ids = async (stack: Stack, user: TestUser, path?: string): Promise<string[]> =>
  (await timeline(stack, user, path)).body.map((s: { id: string }) => s.id)

/** A new user whose home feed is built (read once, as an app does on start), so fan-out reaches it. */
export async function reader(stack: Stack, options: { username?: string } = {}) {
  const user = await signUp(stack, options)
  await timeline(stack, user)
  return user
}
