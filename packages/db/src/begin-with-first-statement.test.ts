import knexFactory from 'knex'
import pg from 'pg'
import { createTestDatabase, startPgBouncer } from '@roost/testing'
import type { PgBouncer } from '@roost/testing'
import { createDatabase } from './index'
import type { Knex } from './index'

/**
 * Each transaction's BEGIN goes with its first statement (packages/db/src/begin-with-first-statement.ts), with
 * prepared statements, unnamed ones, and unnamed through PgBouncer in transaction mode (docs/operations.md,
 * "PgBouncer"). One connection per pool, so that the round trips counted are the transaction's. Another
 * connection, straight to Postgres, looks at what the transaction has done and locked.
 */
const SCHEMA = 'begin_tests'
let url: string
let bouncer: PgBouncer
let other: pg.Client
beforeAll(async () => {
  url = await createTestDatabase()
  other = new pg.Client({ connectionString: url })
  await other.connect()
  await other.query(`CREATE SCHEMA ${SCHEMA}`)
  await other.query(`CREATE TABLE ${SCHEMA}.birds (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE)`)
  bouncer = await startPgBouncer(url, [SCHEMA])
})
afterAll(async () => {
  await other?.end()
  await bouncer?.stop()
})
beforeEach(async () => {
  await other.query(`TRUNCATE ${SCHEMA}.birds`)
  await other.query(`INSERT INTO ${SCHEMA}.birds (name) VALUES ('robin'), ('wren')`)
})

const names = async () =>
  (await other.query(`SELECT name FROM ${SCHEMA}.birds ORDER BY name`)).rows.map(
    (r: { name: string }) => r.name,
  )

/** What the tests use of the pg Client a pool holds. */
interface Connection {
  processID: number
  connection: pg.Client['connection'] & { on(event: 'readyForQuery', listener: () => void): void }
  getTransactionStatus(): string | null
}

/**
 * Round trips the pool's one connection makes while `work` runs: each ends with a ReadyForQuery, the answer to a
 * Sync or to a simple query. The connection is idle after it, in no transaction.
 */
async function roundTrips(database: Knex, work: () => Promise<unknown>): Promise<number> {
  const connection: Connection = await database.client.acquireConnection()
  await database.client.releaseConnection(connection)
  let count = 0
  const counted = () => count++
  connection.connection.on('readyForQuery', counted)
  let failure: unknown
  await work().catch((err) => (failure = err))
  connection.connection.off('readyForQuery', counted)
  expect(connection.getTransactionStatus()).toBe('I')
  if (failure) throw failure
  return count
}

describe.each([
  ['prepared statements', false],
  ['unnamed statements', false],
  ['unnamed statements through PgBouncer', true],
])('with %s', (clientName, throughPgBouncer) => {
  const prepared = clientName === 'prepared statements'
  let db: Knex
  let stock: Knex
  beforeAll(() => {
    const to = throughPgBouncer ? bouncer.urlFor(SCHEMA) : url
    db = createDatabase(to, SCHEMA, { min: 0, max: 1 }, { preparedStatements: prepared })
    stock = knexFactory({ client: 'pg', connection: to, searchPath: [SCHEMA], pool: { min: 0, max: 1 } })
  })
  afterAll(async () => {
    await db?.destroy()
    await stock?.destroy()
  })

  it('answers BEGIN and a statement in one round trip, where knex alone takes two', async () => {
    const post = (database: Knex) => () =>
      database.transaction((trx) => trx('birds').insert({ name: `finch ${database === db}` }))
    expect(await roundTrips(stock, post(stock))).toBe(3)
    expect(await roundTrips(db, post(db))).toBe(2)
    // A statement without parameters, which pg sends as a simple query, carries its BEGIN too.
    expect(await roundTrips(db, () => db.transaction((trx) => trx.raw('SELECT 1')))).toBe(2)
    expect(await names()).toEqual(['finch false', 'finch true', 'robin', 'wren'])
  })

  it('sends nothing for a transaction that runs nothing', async () => {
    expect(await roundTrips(stock, () => stock.transaction(async () => {}))).toBe(2)
    expect(await roundTrips(db, () => db.transaction(async () => {}))).toBe(0)
    let thrown: unknown
    const changingItsMind = () =>
      db
        .transaction(async () => {
          throw new Error('changed its mind')
        })
        .catch((err) => (thrown = err))
    expect(await roundTrips(db, changingItsMind)).toBe(0)
    expect(thrown).toEqual(new Error('changed its mind'))
    // The connection owes nothing after it: a statement outside a transaction commits on its own.
    await db('birds').insert({ name: 'jay' })
    expect(await names()).toContain('jay')
  })

  it("gives each statement its own results, the first one's included", async () => {
    const results = await db.transaction(async (trx) => {
      const first = await trx('birds').where({ name: 'robin' }).first('name')
      const inserted = await trx('birds').insert({ name: 'jay' }).returning('name')
      const [a, b] = await Promise.all([
        trx('birds').insert({ name: 'owl' }).returning('name'),
        trx('birds').whereIn('name', ['wren', 'owl']).orderBy('name').pluck('name'),
      ])
      return { first, inserted, a, b }
    })
    expect(results).toEqual({
      first: { name: 'robin' },
      inserted: [{ name: 'jay' }],
      a: [{ name: 'owl' }],
      b: ['owl', 'wren'],
    })
    // Several statements in one text (a simple query) as the first: their results, as knex alone gives them.
    const both = (database: Knex) =>
      database.transaction(async (trx) =>
        ((await trx.raw('SELECT 1 AS a; SELECT 2 AS b')) as pg.QueryResult[]).map((r) => r.rows),
      )
    expect(await both(db)).toEqual([[{ a: 1 }], [{ b: 2 }]])
    expect(await both(db)).toEqual(await both(stock))
  })

  it('keeps what it has not committed from other connections, until it commits', async () => {
    await db.transaction(async (trx) => {
      await trx('birds').insert({ name: 'jay' })
      expect(await names()).toEqual(['robin', 'wren'])
    })
    expect(await names()).toEqual(['jay', 'robin', 'wren'])
  })

  it('holds the row locks its first statement takes until it ends', async () => {
    const lockedFor = (sql: string) =>
      other.query(`SELECT name FROM ${SCHEMA}.birds WHERE name = 'robin' ${sql}`)
    await db.transaction(async (trx) => {
      expect(await trx('birds').where({ name: 'robin' }).forUpdate().first('name')).toEqual({ name: 'robin' })
      expect((await lockedFor('FOR UPDATE SKIP LOCKED')).rows).toEqual([])
      await expect(lockedFor('FOR UPDATE NOWAIT')).rejects.toMatchObject({ code: '55P03' })
    })
    expect((await lockedFor('FOR UPDATE NOWAIT')).rows).toEqual([{ name: 'robin' }])
  })

  it('begins with the isolation level and access mode knex asks for', async () => {
    expect(
      (
        await db.transaction((trx) => trx.raw('SHOW transaction_isolation'), {
          isolationLevel: 'serializable',
        })
      ).rows,
    ).toEqual([{ transaction_isolation: 'serializable' }])
    await expect(
      db.transaction((trx) => trx('birds').insert({ name: 'jay' }), { readOnly: true }),
    ).rejects.toMatchObject({ code: '25006' })
  })

  it('rolls back when its first statement fails, and after it nothing runs', async () => {
    let trips = roundTrips(db, () =>
      db.transaction(async (trx) => {
        await trx('birds')
          .insert({ name: 'robin' })
          .catch(() => {})
        await trx('birds').insert({ name: 'jay' })
      }),
    )
    // The statement after the failure fails in the aborted transaction: ROLLBACK is sent, as knex alone sends it.
    await expect(trips).rejects.toMatchObject({ code: '25P02' })
    // An error the server finds before it runs anything (a syntax error in a simple query, BEGIN included): the
    // connection is closed, so that nothing that follows runs outside the transaction.
    trips = roundTrips(db, () =>
      db.transaction(async (trx) => {
        await trx.raw('SELEC 1').catch(() => {})
        await trx('birds').insert({ name: 'jay' })
      }),
    )
    await expect(trips).rejects.toThrow()
    // The same, with the statement after it already waiting in pg's queue when the error comes.
    trips = roundTrips(db, () =>
      db.transaction((trx) => Promise.all([trx.raw('SELEC 1'), trx('birds').insert({ name: 'owl' })])),
    )
    await expect(trips).rejects.toThrow()
    expect(await names()).toEqual(['robin', 'wren'])
    await db.transaction((trx) => trx('birds').insert({ name: 'jay' }))
    expect(await names()).toEqual(['jay', 'robin', 'wren'])
  })

  it('rolls back when a later statement fails, or when the callback throws', async () => {
    await expect(
      db.transaction(async (trx) => {
        await trx('birds').insert({ name: 'jay' })
        await trx('birds').insert({ name: 'robin' })
      }),
    ).rejects.toMatchObject({ code: '23505' })
    await expect(
      db.transaction(async (trx) => {
        await trx('birds').insert({ name: 'jay' })
        throw new Error('changed its mind')
      }),
    ).rejects.toThrow('changed its mind')
    // A value pg cannot write, in the first statement: pg has written BEGIN before it, which runs, and knex's
    // ROLLBACK is sent (the connection would be left in a transaction otherwise).
    const unwritable = {
      toPostgres: () => {
        throw new Error('unwritable')
      },
    }
    const insert = (trx: Knex.Transaction) => trx.raw('INSERT INTO birds (name) VALUES (?)', [unwritable])
    let failure: unknown
    expect(await roundTrips(db, () => db.transaction(insert).catch((err) => (failure = err)))).toBe(2)
    expect(String(failure)).toMatch(/unwritable$/)
    expect(await names()).toEqual(['robin', 'wren'])
  })

  it('prepares a statement afresh whose Parse failed in the round trip of its BEGIN', async () => {
    const read = () => db.transaction((trx) => trx('nests').where({ id: 1 }))
    await expect(read()).rejects.toThrow('relation "nests" does not exist')
    await other.query(`CREATE TABLE ${SCHEMA}.nests (id bigint)`)
    try {
      expect(await read()).toEqual([])
    } finally {
      await other.query(`DROP TABLE ${SCHEMA}.nests`)
    }
  })

  it('nests savepoints, the first of which carries the BEGIN', async () => {
    await db.transaction(async (trx) => {
      await trx.transaction((sp) => sp('birds').insert({ name: 'jay' }))
      await trx
        .transaction(async (sp) => {
          await sp('birds').insert({ name: 'owl' })
          throw new Error('undone')
        })
        .catch(() => {})
      await trx.transaction((sp) => sp('birds').insert({ name: 'robin' })).catch(() => {})
      await trx('birds').insert({ name: 'finch' })
    })
    expect(await names()).toEqual(['finch', 'jay', 'robin', 'wren'])
    await expect(
      db.transaction(async (trx) => {
        await trx.transaction(async () => {})
        throw new Error('changed its mind')
      }),
    ).rejects.toThrow('changed its mind')
  })
})

it('fails a transaction whose connection is gone before its first statement, and the next one runs', async () => {
  const db = createDatabase(url, SCHEMA, { min: 0, max: 1 })
  try {
    await expect(
      db.transaction(async (trx) => {
        const connection: Connection = await trx.client.acquireConnection()
        await other.query('SELECT pg_terminate_backend($1, 5000)', [connection.processID])
        await trx('birds').insert({ name: 'jay' })
      }),
    ).rejects.toThrow()
    await db.transaction((trx) => trx('birds').insert({ name: 'owl' }))
    expect(await names()).toEqual(['owl', 'robin', 'wren'])
  } finally {
    await db.destroy()
  }
})
