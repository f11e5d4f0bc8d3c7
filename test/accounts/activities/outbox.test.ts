import pg from 'pg'
import { createDatabase } from '@roost/db'
import type { Knex } from '@roost/db'
import { createTestDatabase } from '@roost/testing'
import { notifyAll } from '../../../apps/accounts/src/domain/notifications'
import { createStatus } from '../../../apps/accounts/src/domain/statuses'
import type { NewStatus } from '../../../apps/accounts/src/domain/statuses'
import type { AccountRow } from '../../../apps/accounts/src/db/rows'
import { SCHEMA } from '../../../apps/accounts/src/db/migrations'
import * as outbox from '../../../apps/accounts/src/outbox/outbox'

/**
 * Events written as a CTE of the statement that makes their rows (`outbox.insertFor`, docs/activities.md "The
 * outbox and its relay"): a new status's `status.created`, a notification's `notification.created`.
 */
let url: string
let db: Knex
let queries: string[]
beforeAll(async () => {
  url = await createTestDatabase()
  db = createDatabase(url, SCHEMA)
  db.on('query', (q: { sql: string }) => queries.push(q.sql))
})
beforeEach(() => (queries = []))
afterAll(() => db.destroy())

const urls = { base: 'https://roost.test', media: 'https://roost.test/media' }
let n = 0
const user = async (): Promise<AccountRow> => {
  const [account] = await db('accounts')
    .insert({ username: `user${++n}` })
    .returning('*')
  await db('users').insert({ account_id: account.id, email: `user${n}@roost.test`, encrypted_password: 'x' })
  return account
}
const newStatus = (text: string): NewStatus => ({
  text,
  spoilerText: '',
  sensitive: false,
  visibility: 'public',
  language: null,
  mediaIds: [],
})
const statements = () => queries.filter((sql) => !/^(BEGIN|COMMIT)/.test(sql))

it('writes a status, its mention and its status.created in one statement, and wakes the relay at commit', async () => {
  const [author, friend] = [await user(), await user()]
  const listener = new pg.Client({ connectionString: url })
  await listener.connect()
  try {
    await listener.query(`LISTEN ${outbox.OUTBOX_CHANNEL}`)
    const heard: string[] = []
    listener.on('notification', (m) => heard.push(m.channel))
    queries = []
    const { status } = await db.transaction(async (trx) => {
      const created = await createStatus(trx, author, newStatus(`hello @${friend.username}`))
      // Both statements of the request, the mentioned accounts and the status with everything it writes.
      expect(statements()).toHaveLength(2)
      expect(statements()[1]).toMatch(/insert into outbox/i)
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(heard).toEqual([]) // not before the commit
      return created
    })
    for (let i = 0; i < 100 && !heard.length; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(heard).toEqual([outbox.OUTBOX_CHANNEL])
    const rows = await db('outbox').whereRaw(`payload->>'statusId' = ?`, [status.id])
    expect(rows.map((r) => [r.queue, r.job_name, r.payload])).toEqual([
      [
        'activities',
        'status.created',
        { event: 'status.created', statusId: status.id, accountId: author.id },
      ],
    ])
  } finally {
    await listener.end()
  }
})

it('names the quoted author in status.created, for a quote of another’s post', async () => {
  const [author, quoted] = [await user(), await user()]
  const { status: original } = await db.transaction((trx) => createStatus(trx, quoted, newStatus('quote me')))
  const { status } = await db.transaction((trx) =>
    createStatus(trx, author, { ...newStatus('so true'), quotedStatusId: original.id }),
  )
  const [row] = await db('outbox').whereRaw(`payload->>'statusId' = ?`, [status.id])
  expect(row.payload).toEqual({
    event: 'status.created',
    statusId: status.id,
    accountId: author.id,
    quotedAccountId: quoted.id,
  })
})

it('fails the change before its statement runs when the event is malformed', async () => {
  const build = () =>
    outbox.insertFor(
      db,
      { cte: 's' },
      { statusId: outbox.rowId('s.id') },
      { event: 'status.created', accountId: 'not an id' },
    )
  expect(build).toThrow(/accountId/)
  expect(queries).toEqual([])
})

describe('notifyAll', () => {
  const mention = async () => {
    const [author, friend] = [await user(), await user()]
    const { status } = await db.transaction((trx) =>
      createStatus(trx, author, newStatus(`hi @${friend.username}`)),
    )
    const notification = {
      type: 'mention' as const,
      senderId: author.id,
      statusId: status.id,
      activityId: status.id,
    }
    return { friend, status, notification, row: { table: 'statuses' as const, id: status.id } }
  }

  it('locks the activity’s row in the recipients’ facts and writes the notifications with their events', async () => {
    const { friend, status, notification, row } = await mention()
    queries = []
    await db.transaction(async (trx) => {
      const made = await notifyAll(trx, urls, notification, [friend.id], row)
      // The facts with the lock, the notification with its outbox row.
      expect(statements()).toHaveLength(2)
      expect(statements()[0]).toMatch(/FOR SHARE/)
      // Another transaction cannot delete the status meanwhile.
      await expect(
        db.raw('SELECT id FROM statuses WHERE id = ? FOR UPDATE NOWAIT', [status.id]),
      ).rejects.toThrow(/could not obtain lock/)
      const [made1] = await trx('notifications').where({ account_id: friend.id })
      expect(made).toEqual(new Map([[friend.id, made1.id]]))
      const [event] = await trx('outbox')
        .where({ job_name: 'notification.created' })
        .whereRaw(`payload->>'recipientAccountId' = ?`, [friend.id])
      expect(event.payload).toMatchObject({
        event: 'notification.created',
        notificationId: made1.id,
        type: 'mention',
        recipientAccountId: friend.id,
        createdAt: new Date(made1.created_at).toISOString(),
        excerpt: `hi @${friend.username}`,
      })
    })
    // Again, as a replayed activity: nothing new, no event.
    await db.transaction((trx) => notifyAll(trx, urls, notification, [friend.id], row))
    expect(await db('notifications').where({ account_id: friend.id })).toHaveLength(1)
    expect(
      await db('outbox')
        .where({ job_name: 'notification.created' })
        .whereRaw(`payload->>'recipientAccountId' = ?`, [friend.id]),
    ).toHaveLength(1)
  })

  it('notifies nobody of a status deleted before it, or while it waited for the status', async () => {
    const gone = await mention()
    await db('statuses').where({ id: gone.status.id }).delete()
    expect(
      await db.transaction((trx) => notifyAll(trx, urls, gone.notification, [gone.friend.id], gone.row)),
    ).toEqual(new Map())

    // Deleted by a transaction that commits while the facts statement waits for its lock.
    const meanwhile = await mention()
    let commit!: () => void
    let deleted!: () => void
    const deletedYet = new Promise<void>((resolve) => (deleted = resolve))
    const deleting = db.transaction(async (trx) => {
      await trx('statuses').where({ id: meanwhile.status.id }).delete()
      deleted()
      await new Promise<void>((resolve) => (commit = resolve))
    })
    await deletedYet
    const notifying = db.transaction((trx) =>
      notifyAll(trx, urls, meanwhile.notification, [meanwhile.friend.id], meanwhile.row),
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    commit()
    await deleting
    expect(await notifying).toEqual(new Map())
    for (const { friend } of [gone, meanwhile])
      expect(await db('notifications').where({ account_id: friend.id })).toEqual([])
  })
})
