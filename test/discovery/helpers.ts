import { main } from '../../apps/accounts/src/cli'
import type { Stack } from '../stack'

export { links, onStack, post, signUp } from '../accounts/social/helpers'
export type { TestUser } from '../accounts/social/helpers'

/**
 * Runs the admin CLI (`npm run roost -- …`) in this process against the stack's database, and returns its exit
 * code and what it printed.
 */
export async function roost(stack: Stack, ...args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const log = jest.spyOn(console, 'log').mockImplementation((m: unknown) => void out.push(String(m)))
  const error = jest.spyOn(console, 'error').mockImplementation((m: unknown) => void err.push(String(m)))
  try {
    const code = await main(args, {
      DATABASE_URL: stack.env.DATABASE_URL,
      REDIS_URL: stack.env.REDIS_URL,
      REDIS_PREFIX: stack.env.REDIS_PREFIX,
    })
    return { code, stdout: out.join('\n'), stderr: err.join('\n') }
  } finally {
    log.mockRestore()
    error.mockRestore()
  }
}

/** The id the CLI printed after "OK". */
export const createdId = (stdout: string) => /^OK (\d+)$/m.exec(stdout)![1]!
