import { createDatabase } from '@roost/db'
import type { Knex } from '@roost/db'
import { createTestDatabase } from '@roost/testing'
import { acknowledgedAmong, createAcknowledger } from '../../apps/push/src/delivery/acknowledgements'
import { SCHEMA } from '../../apps/push/src/service'

/**
 * The push worker's acknowledgements written as a group commit (apps/push/src/delivery/acknowledgements.ts): those
 * that arrive while an insert is in flight go together in the next one, and each caller's promise settles only
 * once its own record is committed.
 */
describe('acknowledgements', () => {
  let db: Knex
  let inserts: number
  beforeAll(async () => {
    db = createDatabase(await createTestDatabase(), SCHEMA)
    db.on('query', (q: { sql: string }) => {
      if (q.sql.includes('INSERT INTO acknowledged_pushes')) inserts++
    })
  })
  beforeEach(() => (inserts = 0))
  afterAll(() => db.destroy())

  it('records deliveries that arrive together in fewer inserts than deliveries, each before its caller goes on', async () => {
    const acknowledge = createAcknowledger(db)
    const ids = Array.from({ length: 10 }, (_, i) => `group-${i}`)
    await Promise.all(
      ids.map(async (id) => {
        await acknowledge(id)
        // Settled means committed: the record is there for anyone to read.
        expect(await acknowledgedAmong(db, [id])).toEqual(new Set([id]))
      }),
    )
    expect(await acknowledgedAmong(db, ids)).toEqual(new Set(ids))
    // The first goes alone; the nine that came while it was in flight go in the next insert.
    expect(inserts).toBe(2)
  })

  it('writes one alone at once, and a delivery recorded twice once', async () => {
    const acknowledge = createAcknowledger(db)
    await acknowledge('alone')
    await acknowledge('alone')
    expect(inserts).toBe(2)
    expect(await db('acknowledged_pushes').where({ delivery_id: 'alone' }).count('* as n')).toEqual([
      { n: '1' },
    ])
  })

  it('fails every caller of an insert that fails for good, and goes on with the next', async () => {
    const broken = createDatabase(await createTestDatabase(), SCHEMA)
    await broken.schema.dropTable('acknowledged_pushes')
    const acknowledge = createAcknowledger(broken)
    const outcomes = await Promise.allSettled(['a', 'b', 'c'].map((id) => acknowledge(id)))
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected'])
    await broken.schema.createTable('acknowledged_pushes', (t) => {
      t.text('delivery_id').primary()
      t.timestamp('acknowledged_at', { useTz: true }).notNullable().defaultTo(broken.fn.now())
    })
    await acknowledge('d')
    expect(await acknowledgedAmong(broken, ['a', 'd'])).toEqual(new Set(['d']))
    await broken.destroy()
  })
})
