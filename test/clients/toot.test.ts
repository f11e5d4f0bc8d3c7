import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { post, signUp } from '../accounts/social/helpers'

/**
 * toot 0.34 (Debian's `toot`, the command-line client; installed by `npm test` when missing), run as a person runs
 * it against the gateway: it registers its app, logs in with the password grant, follows a friend and reads home.
 * Its configuration lives in a directory of this test (XDG_CONFIG_HOME). Run asynchronously: the stack answers it
 * from this very process.
 */
let stack: Stack
let config: string
beforeAll(async () => {
  stack = await startStack()
  config = mkdtempSync(path.join(tmpdir(), 'roost-toot-'))
})
afterAll(async () => {
  rmSync(config, { recursive: true, force: true })
  await stack.stop()
})

function toot(args: string[], input = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'toot',
      args,
      { env: { ...process.env, XDG_CONFIG_HOME: config, COLUMNS: '200' }, timeout: 60_000 },
      (err, stdout, stderr) =>
        err
          ? reject(new Error(`toot ${args.join(' ')}: ${err.message}\n${stdout}\n${stderr}`))
          : resolve(stdout),
    )
    child.stdin!.end(input)
  })
}

it('toot timeline right after sign-up, a follow and the friend’s post shows the post', async () => {
  const friend = await signUp(stack, { username: 'friend' })
  const me = await stack.createUser({ username: 'newcomer' })
  const instance = new URL(stack.url).host

  // The password is read from standard input when it is not a terminal.
  expect(
    await toot(['login_cli', '--instance', instance, '--disable-https', '--email', me.email], me.password),
  ).toContain('Successfully logged in')
  expect(await toot(['follow', 'friend'])).toContain('You are now following friend')
  const posted = await post(friend, 'Welcome to the neighbourhood, newcomer!')
  await stack.drain()

  const timeline = await toot(['timeline', '--once'])
  expect(timeline).toContain('Welcome to the neighbourhood, newcomer!')
  expect(timeline).toContain('@friend')
  expect(timeline).toContain(posted)
})
