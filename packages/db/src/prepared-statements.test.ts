import { createTestDatabase } from '@roost/testing'
import { createDatabase } from './index'
import type { Knex } from './index'
import { MAX_PREPARED_STATEMENTS } from './prepared-statements'

/**
 * Statements with bindings run as named prepared statements (packages/db/src/prepared-statements.ts). One
 * connection per pool, so that `pg_prepared_statements` (which lists the current connection's) sees them all.
 */
describe('prepared statements', () => {
  let url: string
  let db: Knex
  beforeAll(async () => {
    url = await createTestDatabase()
    db = createDatabase(url, 'prepared', { min: 0, max: 1 })
    await db.raw('CREATE SCHEMA prepared')
    await db.schema.createTable('birds', (t) => {
      t.bigIncrements('id')
      t.text('name').notNullable()
    })
    await db('birds').insert([{ name: 'robin' }, { name: 'wren' }])
  })
  afterAll(() => db.destroy())

  const prepared = async (database: Knex): Promise<string[]> =>
    (
      (await database.raw('SELECT statement FROM pg_prepared_statements')).rows as { statement: string }[]
    ).map((r) => r.statement)

  it('prepares a statement with bindings once and runs it again by name', async () => {
    expect(await db('birds').where({ name: 'robin' }).first()).toMatchObject({ name: 'robin' })
    expect(await db('birds').where({ name: 'wren' }).first()).toMatchObject({ name: 'wren' })
    const statements = await prepared(db)
    expect(statements.filter((s) => s.includes('from "birds" where "name" = $1'))).toHaveLength(1)
  })

  it('sends a list as one array parameter, so that lists of any length share one statement', async () => {
    const names = async (ids: number[], not = false) =>
      (await (not ? db('birds').whereNotIn('id', ids) : db('birds').whereIn('id', ids)).orderBy('id')).map(
        (b: { name: string }) => b.name,
      )
    expect(await names([1])).toEqual(['robin'])
    expect(await names([2, 1])).toEqual(['robin', 'wren'])
    expect(await names([1, 2, 3, 4, 5])).toEqual(['robin', 'wren'])
    expect(await names([1], true)).toEqual(['wren'])
    expect(await names([1, 2], true)).toEqual([])
    // Strings for a bigint column, as Roost's ids are.
    expect(await db('birds').whereIn('id', ['2']).pluck('name')).toEqual(['wren'])
    const lists = (await prepared(db)).filter((s) => /from "birds" where (NOT \()?"id"/.test(s))
    expect(lists.sort()).toEqual([
      'select "name" from "birds" where "id" = ANY($1)',
      'select * from "birds" where "id" = ANY($1) order by "id" asc',
      'select * from "birds" where NOT ("id" = ANY($1)) order by "id" asc',
    ])
    // An empty list matches nothing, as knex writes it; an undefined value is refused, as knex refuses it.
    expect(await names([])).toEqual([])
    expect(await names([], true)).toEqual(['robin', 'wren'])
    expect(() =>
      db('birds')
        .whereIn('id', [1, undefined as unknown as number])
        .toSQL(),
    ).toThrow(/Undefined binding/)
  })

  it('runs a statement without bindings unprepared', async () => {
    await db.raw('SELECT count(*) FROM birds')
    expect((await prepared(db)).some((s) => s.includes('count(*)'))).toBe(false)
  })

  it('names no more than its limit of texts, and runs the rest unnamed', async () => {
    const many = createDatabase(url, 'prepared', { min: 0, max: 1 })
    try {
      const n = MAX_PREPARED_STATEMENTS + 5
      for (let i = 0; i < n; i++) {
        expect((await many.raw(`SELECT ?::int + ${i} AS sum`, [1])).rows).toEqual([{ sum: 1 + i }])
      }
      expect(await prepared(many)).toHaveLength(MAX_PREPARED_STATEMENTS)
    } finally {
      await many.destroy()
    }
  })

  it('goes on after a migration changes the columns of a statement it prepared', async () => {
    const read = () => db('birds').where({ name: 'robin' }).first()
    await read()
    await db.schema.alterTable('birds', (t) => t.text('song'))
    // On its own, the statement is prepared afresh and runs again.
    expect(await read()).toEqual({ id: '1', name: 'robin', song: null })

    await db.schema.alterTable('birds', (t) => t.text('colour'))
    // In a transaction, the failure has aborted it: it fails, as any error there does, and the next try succeeds.
    await expect(db.transaction((trx) => trx('birds').where({ name: 'robin' }).first())).rejects.toThrow(
      'cached plan must not change result type',
    )
    expect(await db.transaction((trx) => trx('birds').where({ name: 'robin' }).first())).toEqual({
      id: '1',
      name: 'robin',
      song: null,
      colour: null,
    })
  })
})
