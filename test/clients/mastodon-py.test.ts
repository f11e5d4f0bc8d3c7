import { execFile } from 'node:child_process'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { post, signUp } from '../accounts/social/helpers'

/**
 * Mastodon.py 1.8 (Debian's `python3-mastodon`; installed by `npm test` when missing) against the gateway. It turns
 * every id into a Python int and sends ids in JSON bodies as numbers, beyond 2^53 for Roost's snowflake ids: the
 * server must read them exactly (docs/mastodon-compatibility.md, "Parameters"). Run asynchronously: the stack
 * answers it from this very process.
 */
let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(async () => {
  await stack.stop()
})

/** Runs `script` with `api` a Mastodon client of `token`; the script prints one JSON value, which is returned. */
function mastodonPy(token: string, script: string): Promise<unknown> {
  const program = `
import json, sys
from mastodon import Mastodon
api = Mastodon(access_token=${JSON.stringify(token)}, api_base_url=${JSON.stringify(stack.url)})
${script}
`
  return new Promise((resolve, reject) => {
    const child = execFile('/usr/bin/python3', ['-'], { timeout: 60_000 }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`Mastodon.py: ${err.message}\n${stdout}\n${stderr}`))
        : resolve(JSON.parse(stdout)),
    )
    child.stdin!.end(program)
  })
}

it('markers_set and markers_get with int ids give back the exact id', async () => {
  const me = await signUp(stack)
  const id = await post(me, 'read up to here')
  expect(BigInt(id)).toBeGreaterThan(2n ** 53n)
  const result = await mastodonPy(
    me.token,
    `set = api.markers_set(['home'], [${id}])
got = api.markers_get(['home'])
print(json.dumps({'set': str(set['home']['last_read_id']), 'got': str(got['home']['last_read_id'])}))`,
  )
  expect(result).toEqual({ set: id, got: id })
  const stored = await me.get('/api/v1/markers?timeline[]=home').expect(200)
  expect(stored.body.home.last_read_id).toBe(id)
})

it('account_familiar_followers with an int id answers for that exact account', async () => {
  const [me, friend, target] = [await signUp(stack), await signUp(stack), await signUp(stack)]
  await me.post(`/api/v1/accounts/${friend.id}/follow`).expect(200)
  await friend.post(`/api/v1/accounts/${target.id}/follow`).expect(200)
  expect(BigInt(target.id)).toBeGreaterThan(2n ** 53n)
  const result = await mastodonPy(
    me.token,
    `answer = api.account_familiar_followers(${target.id})
print(json.dumps([{'id': str(a['id']), 'accounts': [str(b['id']) for b in a['accounts']]} for a in answer]))`,
  )
  expect(result).toEqual([{ id: target.id, accounts: [friend.id] }])
})
