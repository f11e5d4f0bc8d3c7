import { createHash } from 'node:crypto'
import { createFollow } from '../../apps/accounts/src/domain/relationships'
import { favourite } from '../../apps/accounts/src/domain/favourites'
import { domainPolicy, isDomainBlocked } from '../../apps/accounts/src/federation/domain-blocks'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { links } from '../accounts/social/helpers'

let stack: Stack
let admin: string
beforeAll(async () => {
  stack = await startStack({ env: { SHOW_DOMAIN_BLOCKS: 'users', SHOW_DOMAIN_BLOCKS_RATIONALE: 'all' } })
  const boss = await stack.createUser({ username: 'boss', role: 'admin' })
  admin = await stack.userToken('read write admin:read admin:write', boss)
})
afterAll(() => stack.stop())

const db = () => stack.accounts.ctx.db
const asAdmin = {
  get: (path: string) => stack.api().get(path).set(bearer(admin)),
  post: (path: string, body: object) => stack.api().post(path).set(bearer(admin)).send(body),
  put: (path: string, body: object) => stack.api().put(path).set(bearer(admin)).send(body),
  delete: (path: string) => stack.api().delete(path).set(bearer(admin)),
}
/** A remote account as federation stores one (resolving them is another part of Federation I). */
async function remote(username: string, domain: string) {
  const [row] = await db()('accounts')
    .insert({ username, domain, uri: `https://${domain}/users/${username}` })
    .returning('id')
  return row.id as string
}
const account = (id: string) => db()('accounts').where({ id }).first()

describe('admin domain blocks', () => {
  it('need an admin and the admin:*:domain_blocks scopes', async () => {
    const user = await stack.createUser()
    const token = await stack.userToken('read write', user)
    await stack.api().get('/api/v1/admin/domain_blocks').set(bearer(token)).expect(403)
    const demoted = await stack.createUser({ role: 'admin' })
    const adminToken = await stack.userToken('admin:read:domain_blocks', demoted)
    await stack.api().get('/api/v1/admin/domain_blocks').set(bearer(adminToken)).expect(200)
    await stack
      .api()
      .post('/api/v1/admin/domain_blocks')
      .set(bearer(adminToken))
      .send({ domain: 'x.example' })
      .expect(403)
    await db()('users').where({ id: demoted.userId }).update({ role: 'user' })
    await stack.api().get('/api/v1/admin/domain_blocks').set(bearer(adminToken)).expect(403)
  })

  it('suspend: suspends the accounts of the domain and its subdomains and severs their follows', async () => {
    const alice = await stack.createUser({ username: 'alice' })
    const carol = await remote('carol', 'spam.example')
    const dave = await remote('dave', 'sub.spam.example:8443')
    const erin = await remote('erin', 'notspam.example')
    await db().transaction(async (trx) => {
      await createFollow(trx, alice.accountId, dave, {})
      await createFollow(trx, carol, alice.accountId, {})
      await createFollow(trx, alice.accountId, erin, {})
    })
    await db()('follow_requests').insert({ account_id: dave, target_account_id: alice.accountId })

    const res = await asAdmin
      .post('/api/v1/admin/domain_blocks', {
        domain: ' Spam.EXAMPLE ',
        severity: 'suspend',
        reject_media: 'true',
        private_comment: 'seen in reports',
        public_comment: 'spam',
      })
      .expect(200)
    expect(res.body).toEqual({
      id: expect.any(String),
      domain: 'spam.example',
      created_at: expect.any(String),
      severity: 'suspend',
      reject_media: true,
      reject_reports: false,
      private_comment: 'seen in reports',
      public_comment: 'spam',
      obfuscate: false,
    })
    expect((await account(carol)).suspended_at).toEqual(new Date(res.body.created_at))
    expect((await account(dave)).suspended_at).toEqual(new Date(res.body.created_at))
    expect((await account(erin)).suspended_at).toBeNull()
    const follows = await db()('follows').whereIn('account_id', [alice.accountId, carol])
    expect(follows.map((f) => f.target_account_id)).toEqual([erin])
    expect(await db()('follow_requests').where({ account_id: dave })).toEqual([])
    const a = await account(alice.accountId)
    expect([a.following_count, a.followers_count]).toEqual([1, 0])

    // The look-ups the inbox and delivery use.
    expect(await isDomainBlocked(db(), 'spam.example')).toBe(true)
    expect(await isDomainBlocked(db(), 'deep.sub.spam.example:8443')).toBe(true)
    expect(await isDomainBlocked(db(), 'notspam.example')).toBe(false)
    expect(await isDomainBlocked(db(), null)).toBe(false)
    expect(await domainPolicy(db(), 'sub.spam.example')).toEqual({
      suspend: true,
      silence: false,
      rejectMedia: true,
      rejectReports: true,
    })

    // Blocked again, or a milder block under it: 422 naming the block in place. A stricter one under a milder
    // parent is fine.
    const again = await asAdmin.post('/api/v1/admin/domain_blocks', { domain: 'spam.example' }).expect(422)
    expect(again.body).toEqual({
      error: 'You have already imposed stricter limits on spam.example.',
      existing_domain_block: res.body,
    })
    const under = await asAdmin
      .post('/api/v1/admin/domain_blocks', { domain: 'sub.spam.example', severity: 'silence' })
      .expect(422)
    expect(under.body.existing_domain_block.id).toBe(res.body.id)

    // Made milder (silence): the suspension it made is lifted, the accounts silenced.
    const put = await asAdmin
      .put(`/api/v1/admin/domain_blocks/${res.body.id}`, { severity: 'silence', domain: 'ignored.example' })
      .expect(200)
    expect(put.body).toMatchObject({ domain: 'spam.example', severity: 'silence', reject_media: true })
    expect(await account(carol)).toMatchObject({
      suspended_at: null,
      silenced_at: new Date(res.body.created_at),
    })
    expect(await isDomainBlocked(db(), 'spam.example')).toBe(false)
    expect(await domainPolicy(db(), 'spam.example')).toMatchObject({ silence: true, rejectMedia: true })
    await asAdmin
      .post('/api/v1/admin/domain_blocks', { domain: 'sub.spam.example', severity: 'suspend' })
      .expect(200)
    expect(await isDomainBlocked(db(), 'sub.spam.example')).toBe(true)
    expect(await isDomainBlocked(db(), 'spam.example')).toBe(false)

    // Deleted: `{}`, and what it did is undone (an account suspended by other means would stay so).
    await asAdmin.delete(`/api/v1/admin/domain_blocks/${res.body.id}`).expect(200, {})
    expect(await account(carol)).toMatchObject({ suspended_at: null, silenced_at: null })
    await asAdmin.get(`/api/v1/admin/domain_blocks/${res.body.id}`).expect(404)
    await asAdmin.delete(`/api/v1/admin/domain_blocks/${res.body.id}`).expect(404)
  })

  it("refuses what Mastodon refuses, with Rails' texts", async () => {
    const post = (body: object) => asAdmin.post('/api/v1/admin/domain_blocks', body).expect(422)
    expect((await post({})).body.error).toBe("Validation failed: Domain can't be blank")
    expect((await post({ domain: 'not a domain' })).body.error).toBe(
      'Validation failed: Domain is not a valid domain name',
    )
    expect((await post({ domain: 'ok.example', severity: 'ban' })).body.error).toBe(
      'Validation failed: Severity is not included in the list',
    )
    await asAdmin.get('/api/v1/admin/domain_blocks/nope').expect(404)
  })

  it('are listed newest first, paged with Link, and shown one by one', async () => {
    const made: string[] = []
    for (const domain of ['one.example', 'two.example', 'three.example'])
      made.push(
        (await asAdmin.post('/api/v1/admin/domain_blocks', { domain, severity: 'noop' }).expect(200)).body.id,
      )
    const first = await asAdmin.get('/api/v1/admin/domain_blocks?limit=2').expect(200)
    expect(first.body.map((b: { domain: string }) => b.domain)).toEqual(['three.example', 'two.example'])
    const next = links(first.headers.link).next!
    const second = await asAdmin.get(new URL(next).pathname + new URL(next).search).expect(200)
    expect(second.body[0].domain).toBe('one.example')
    expect((await asAdmin.get(`/api/v1/admin/domain_blocks/${made[0]}`).expect(200)).body.domain).toBe(
      'one.example',
    )
  })
})

describe('GET /api/v1/instance/domain_blocks', () => {
  it('shows silenced and suspended servers as SHOW_DOMAIN_BLOCKS allows, obfuscated when asked', async () => {
    await asAdmin
      .post('/api/v1/admin/domain_blocks', {
        domain: 'verybad.example',
        severity: 'suspend',
        obfuscate: true,
        public_comment: 'abuse',
        private_comment: 'never shown',
      })
      .expect(200)
    await asAdmin
      .post('/api/v1/admin/domain_blocks', { domain: 'loud.example', severity: 'silence' })
      .expect(200)

    // `users`: anonymous callers get a 404.
    await stack.api().get('/api/v1/instance/domain_blocks').expect(404)
    const user = await stack.createUser()
    const token = await stack.userToken('read', user)
    const res = await stack.api().get('/api/v1/instance/domain_blocks').set(bearer(token)).expect(200)
    expect(res.headers['cache-control']).toBe('public, max-age=180')
    const digest = (d: string) => createHash('sha256').update(d).digest('hex')
    // Silenced first, then suspended; noop blocks (one/two/three.example and sub.spam.example's parent) are left out.
    expect(res.body.filter((b: { domain: string }) => /loud|very|\*/.test(b.domain))).toEqual([
      { domain: 'loud.example', digest: digest('loud.example'), severity: 'silence', comment: null },
      { domain: 'very***.****ple', digest: digest('verybad.example'), severity: 'suspend', comment: 'abuse' },
    ])
    expect(res.body.map((b: { severity: string }) => b.severity)).not.toContain('noop')
  })
})

describe("a user's domain blocks", () => {
  it('sever the follows both ways, hide the domain from listings and its accounts from notifications', async () => {
    const gina = await stack.createUser({ username: 'gina' })
    const hank = await stack.createUser({ username: 'hank' })
    const ginaToken = await stack.userToken('read write follow', gina)
    const hankToken = await stack.userToken('read', hank)
    const ivan = await remote('ivan', 'noisy.example')
    const jane = await remote('jane', 'sub.noisy.example:8443')
    const kurt = await remote('kurt', 'quiet.example')
    await db().transaction(async (trx) => {
      await createFollow(trx, gina.accountId, jane, {})
      await createFollow(trx, ivan, gina.accountId, {})
      await createFollow(trx, kurt, gina.accountId, {})
    })
    await db()('follow_requests').insert({ account_id: jane, target_account_id: gina.accountId })
    const [loud] = await db()('statuses')
      .insert({
        account_id: ivan,
        uri: 'https://noisy.example/users/ivan/statuses/1',
        text: 'loud',
        visibility: 'public',
      })
      .returning('id')
    const [calm] = await db()('statuses')
      .insert({
        account_id: kurt,
        uri: 'https://quiet.example/users/kurt/statuses/1',
        text: 'calm',
        visibility: 'public',
      })
      .returning('id')

    await stack
      .api()
      .post('/api/v1/domain_blocks')
      .set(bearer(ginaToken))
      .send({ domain: 'noisy.example' })
      .expect(200, {})

    // The follows both ways and the pending request with the domain and its subdomains end; others stay.
    expect(
      await db()('follows')
        .where({ account_id: gina.accountId })
        .orWhere({ target_account_id: gina.accountId })
        .select('account_id', 'target_account_id'),
    ).toEqual([{ account_id: kurt, target_account_id: gina.accountId }])
    expect(await db()('follow_requests').where({ target_account_id: gina.accountId })).toEqual([])
    const relationships = await stack
      .api()
      .get(`/api/v1/accounts/relationships?id[]=${ivan}&id[]=${jane}&id[]=${kurt}`)
      .set(bearer(ginaToken))
      .expect(200)
    expect(relationships.body.map((r: { domain_blocking: boolean }) => r.domain_blocking)).toEqual([
      true,
      true,
      false,
    ])

    // Her public timeline leaves the domain out; hank's still has it.
    const publicIds = async (token: string) =>
      (await stack.api().get('/api/v1/timelines/public?remote=true').set(bearer(token)).expect(200)).body.map(
        (s: { id: string }) => s.id,
      )
    expect(await publicIds(ginaToken)).toEqual([calm.id])
    expect(await publicIds(hankToken)).toEqual([calm.id, loud.id])

    // A favourite from the domain notifies her no more; one from elsewhere does.
    const post = (
      await stack.api().post('/api/v1/statuses').set(bearer(ginaToken)).send({ status: 'mine' }).expect(200)
    ).body
    const status = await db()('statuses').where({ id: post.id }).first()
    await db().transaction(async (trx) => {
      await favourite(trx, ivan, status)
      await favourite(trx, kurt, status)
    })
    await stack.drain()
    const notifications = await stack
      .api()
      .get('/api/v1/notifications?types[]=favourite')
      .set(bearer(ginaToken))
      .expect(200)
    expect(
      notifications.body.map((n: { type: string; account: { id: string } }) => [n.type, n.account.id]),
    ).toEqual([['favourite', kurt]])
  })
})
