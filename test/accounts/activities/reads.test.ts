import { createDatabase } from '@roost/db'
import type { Knex } from '@roost/db'
import { createTestDatabase } from '@roost/testing'
import { createReads } from '../../../apps/accounts/src/domain/reads'
import { createStatus } from '../../../apps/accounts/src/domain/statuses'
import { SCHEMA } from '../../../apps/accounts/src/db/migrations'

/** The reads one activity's consumers share (apps/accounts/src/domain/reads.ts): each row is read once. */
describe('shared reads', () => {
  let db: Knex
  let queries: string[]
  beforeAll(async () => {
    db = createDatabase(await createTestDatabase(), SCHEMA)
    db.on('query', (q: { sql: string }) => queries.push(q.sql))
  })
  beforeEach(() => (queries = []))
  afterAll(() => db.destroy())

  it('reads a status, an account and a status’s tags once however many ask, at once or later', async () => {
    const reads = createReads(db)
    const [account] = await db('accounts').insert({ username: 'reader' }).returning('*')
    await Promise.all([
      reads.account(account.id),
      reads.account(account.id),
      reads.status('1'),
      reads.tags('1'),
    ])
    expect(await reads.account(account.id)).toMatchObject({ id: account.id, username: 'reader' })
    expect(await reads.status('1')).toBeUndefined()
    expect(await reads.tags('1')).toEqual([])
    // Queries other than the insert: one per row asked for.
    expect(queries.filter((sql) => !sql.startsWith('insert'))).toHaveLength(3)
  })

  it('reads a status with its author, its mentions and its hashtags in one statement', async () => {
    const [author] = await db('accounts').insert({ username: 'poster' }).returning('*')
    const [friend] = await db('accounts').insert({ username: 'friend' }).returning('*')
    const { status } = await db.transaction((trx) =>
      createStatus(trx, author, {
        text: 'hello @friend #Roost #birds',
        spoilerText: '',
        sensitive: false,
        visibility: 'public',
        language: null,
        mediaIds: [],
      }),
    )
    queries = []
    const reads = createReads(db)
    expect(await reads.status(status.id)).toMatchObject({ id: status.id, account_id: author.id })
    expect(await reads.account(author.id)).toMatchObject({ id: author.id, username: 'poster' })
    expect(await reads.mentions(status.id)).toEqual([friend.id])
    expect((await reads.tags(status.id)).map((t) => t.name).sort()).toEqual(['birds', 'roost'])
    expect(queries).toHaveLength(1)
  })

  it('reads afresh for another piece of work', async () => {
    const [account] = await db('accounts').insert({ username: 'changing' }).returning('*')
    expect(await createReads(db).account(account.id)).toMatchObject({ display_name: '' })
    await db('accounts').where({ id: account.id }).update({ display_name: 'Changed' })
    expect(await createReads(db).account(account.id)).toMatchObject({ display_name: 'Changed' })
  })
})
