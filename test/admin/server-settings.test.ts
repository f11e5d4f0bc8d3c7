import { startStack } from '../stack'
import { isDomainBlocked } from '../../apps/accounts/src/federation/domain-blocks'
import type { Stack } from '../stack'

/** Server settings, rules and announcements through the admin API, shown at once (docs/moderation.md). */
let stack: Stack
let admin: string
beforeAll(async () => {
  stack = await startStack({ env: { RATE_LIMITS: 'off' } })
  const boss = await stack.createUser({ username: 'boss', role: 'admin' })
  admin = await stack.userToken('read admin:read admin:write', boss)
})
afterAll(() => stack.stop())

const put = (path: string, body: object) =>
  stack.api().put(path).set('Authorization', `Bearer ${admin}`).send(body)
const post = (path: string, body: object = {}) =>
  stack.api().post(path).set('Authorization', `Bearer ${admin}`).send(body)

async function signUp(username: string, extra: object = {}) {
  const appToken = await stack.appToken('write:accounts')
  return stack
    .api()
    .post('/api/v1/accounts')
    .set('Authorization', `Bearer ${appToken}`)
    .send({
      username,
      email: `${username}@example.test`,
      password: 'long enough password',
      agreement: true,
      ...extra,
    })
}

it('settings change /api/v2/instance, v1, the extended description and sign-ups at once', async () => {
  const before = await stack.api().get('/api/v2/instance').expect(200)
  expect(before.body.registrations).toMatchObject({ enabled: true, approval_required: false })
  const initial = await stack
    .api()
    .get('/api/v1/admin/settings')
    .set('Authorization', `Bearer ${admin}`)
    .expect(200)
  expect(initial.body).toMatchObject({
    site_title: before.body.title,
    registrations_mode: 'open',
    updated_at: null,
  })

  const changed = await put('/api/v1/admin/settings', {
    site_title: 'Heron Bay',
    site_short_description: 'Birds, mostly',
    site_extended_description: 'First paragraph.\n\nSecond one.',
    site_contact_username: 'boss',
    site_contact_email: 'mods@heron.example',
    registrations_mode: 'approved',
    require_invite_text: true,
    languages: ['en', 'fr'],
  }).expect(200)
  expect(changed.body).toMatchObject({ site_title: 'Heron Bay', registrations_mode: 'approved' })
  expect(changed.body.updated_at).not.toBeNull()

  const v2 = await stack.api().get('/api/v2/instance').expect(200)
  expect(v2.body).toMatchObject({
    title: 'Heron Bay',
    description: 'Birds, mostly',
    languages: ['en', 'fr'],
    registrations: { enabled: true, approval_required: true, reason_required: true },
    contact: { email: 'mods@heron.example', account: { username: 'boss' } },
  })
  const v1 = await stack.api().get('/api/v1/instance').expect(200)
  expect(v1.body).toMatchObject({ title: 'Heron Bay', approval_required: true, email: 'mods@heron.example' })
  const extended = await stack.api().get('/api/v1/instance/extended_description').expect(200)
  expect(extended.body.content).toBe('<p>First paragraph.</p><p>Second one.</p>')
  expect(extended.body.updated_at).not.toBeNull()

  // Approval mode asks a reason, and the account waits.
  expect((await signUp('noreason')).status).toBe(422)
  expect((await signUp('withreason', { reason: 'I like herons' })).status).toBe(200)
  const pending = await stack
    .api()
    .get('/api/v1/admin/accounts?pending=true')
    .set('Authorization', `Bearer ${admin}`)
  expect(pending.body.map((a: { username: string }) => a.username)).toEqual(['withreason'])

  // Closed: refused, with the message shown.
  await put('/api/v1/admin/settings', {
    registrations_mode: 'none',
    closed_registrations_message: 'Full up.',
  }).expect(200)
  expect((await signUp('closedout')).status).toBe(403)
  const closed = await stack.api().get('/api/v2/instance').expect(200)
  expect(closed.body.registrations).toMatchObject({ enabled: false, message: 'Full up.' })

  // Bad values are refused whole.
  expect((await put('/api/v1/admin/settings', { registrations_mode: 'sometimes' })).status).toBe(422)
  expect((await put('/api/v1/admin/settings', { site_contact_username: 'nobody' })).status).toBe(422)
  expect((await put('/api/v1/admin/settings', { site_title: 'X', languages: ['english!'] })).status).toBe(422)
  expect((await stack.api().get('/api/v2/instance')).body.title).toBe('Heron Bay')
  // …and every change is in the audit log.
  const log = await stack
    .api()
    .get('/api/v1/admin/action_logs?target_type=Setting')
    .set('Authorization', `Bearer ${admin}`)
  expect(log.body).toHaveLength(2)
})

it('rules and announcements are managed through the API and shown to everyone', async () => {
  const rule = await post('/api/v1/admin/rules', { text: 'Be kind', hint: 'Really' }).expect(200)
  await post('/api/v1/admin/rules', { text: 'No spam' }).expect(200)
  expect((await post('/api/v1/admin/rules', { text: ' ' })).status).toBe(422)
  await put(`/api/v1/admin/rules/${rule.body.id}`, { text: 'Be very kind' }).expect(200)
  const rules = await stack.api().get('/api/v1/instance/rules').expect(200)
  expect(rules.body.map((r: { text: string }) => r.text)).toEqual(['Be very kind', 'No spam'])
  await stack
    .api()
    .delete(`/api/v1/admin/rules/${rule.body.id}`)
    .set('Authorization', `Bearer ${admin}`)
    .expect(200)
  expect((await stack.api().get('/api/v1/instance/rules')).body).toHaveLength(1)

  const reader = await stack.userToken('read')
  const shown = async () =>
    (
      await stack.api().get('/api/v1/announcements').set('Authorization', `Bearer ${reader}`).expect(200)
    ).body.map((a: { content: string }) => a.content)
  const draft = await post('/api/v1/admin/announcements', {
    text: 'Maintenance tonight',
    published: false,
  }).expect(200)
  expect(draft.body.published).toBe(false)
  expect(await shown()).toEqual([])
  await post(`/api/v1/admin/announcements/${draft.body.id}/publish`).expect(200)
  expect(await shown()).toEqual(['<p>Maintenance tonight</p>'])
  await put(`/api/v1/admin/announcements/${draft.body.id}`, { text: 'Maintenance at 22:00' }).expect(200)
  expect(await shown()).toEqual(['<p>Maintenance at 22:00</p>'])
  await post(`/api/v1/admin/announcements/${draft.body.id}/unpublish`).expect(200)
  expect(await shown()).toEqual([])
  const all = await stack
    .api()
    .get('/api/v1/admin/announcements')
    .set('Authorization', `Bearer ${admin}`)
    .expect(200)
  expect(all.body).toHaveLength(1)
})

it('e-mail domain and canonical e-mail blocks refuse sign-ups; limited federation keeps to the allowed domains', async () => {
  await put('/api/v1/admin/settings', { registrations_mode: 'open' }).expect(200)
  const block = await post('/api/v1/admin/email_domain_blocks', { domain: 'Spam.Example' }).expect(200)
  expect(block.body).toMatchObject({ domain: 'spam.example', history: [] })
  expect((await post('/api/v1/admin/email_domain_blocks', { domain: 'spam.example' })).status).toBe(422)
  const refused = await signUp('spammer', { email: 'x@mx.spam.example' })
  expect(refused.status).toBe(422)
  expect(refused.body.details.email[0].error).toBe('ERR_BLOCKED')

  const canonical = await post('/api/v1/admin/canonical_email_blocks', {
    email: 'Jane.Doe+promo@Mail.example',
  }).expect(200)
  expect(canonical.body.canonical_email_hash).toMatch(/^[0-9a-f]{64}$/)
  const tested = await post('/api/v1/admin/canonical_email_blocks/test', {
    email: 'janedoe@mail.example',
  }).expect(200)
  expect(tested.body).toEqual([canonical.body])
  expect(
    (await post('/api/v1/admin/canonical_email_blocks/test', { email: 'jane@mail.example' })).body,
  ).toEqual([])
  expect((await signUp('janedoe', { email: 'j.a.n.e.doe+again@mail.example' })).status).toBe(422)
  expect((await signUp('janeok', { email: 'jane@mail.example' })).status).toBe(200)
  await stack
    .api()
    .delete(`/api/v1/admin/email_domain_blocks/${block.body.id}`)
    .set('Authorization', `Bearer ${admin}`)
    .expect(200)
  expect((await signUp('spammer', { email: 'x@mx.spam.example' })).status).toBe(200)

  const db = stack.accounts.ctx.db
  expect(await isDomainBlocked(db, 'peer.example')).toBe(false)
  await put('/api/v1/admin/settings', { limited_federation_mode: true }).expect(200)
  expect((await stack.api().get('/api/v2/instance')).body.configuration.limited_federation).toBe(true)
  expect(await isDomainBlocked(db, 'peer.example')).toBe(true)
  const allow = await post('/api/v1/admin/domain_allows', { domain: 'peer.example' }).expect(200)
  expect((await post('/api/v1/admin/domain_allows', { domain: 'peer.example' })).body.id).toBe(allow.body.id)
  expect(await isDomainBlocked(db, 'social.peer.example')).toBe(false)
  expect(await isDomainBlocked(db, 'other.example')).toBe(true)
  await put('/api/v1/admin/settings', { limited_federation_mode: false }).expect(200)
  expect(await isDomainBlocked(db, 'other.example')).toBe(false)
})
