// @ts-expect-error knex ships no types for its dialect classes; this is the class `client: 'pg'` names.
import KnexPgClient from 'knex/lib/dialects/postgres/index.js'
// @ts-expect-error pg's types describe its Query class, not the protocol handlers this file extends.
import PgQuery from 'pg/lib/query.js'

/** What knex hands its dialect to run: the SQL, its bindings and the query's options (`name`, `rowMode`, …). */
export interface CompiledQuery {
  sql: string
  bindings?: readonly unknown[]
  options?: Record<string, unknown>
  response?: unknown
}

/** The pg Client knex holds as a connection, as far as this file uses it. */
export interface PgClient {
  query(query: object, callback: (err: Error | null, response: unknown) => void): void
  connection: { stream: { destroy(): void } }
  /** knex's mark of a connection its pool must not hand out again. */
  __knex__disposed?: unknown
}

/** pg's Connection, which a query writes its protocol messages to. */
interface PgWire {
  parse(message: { text: string }): void
  bind(message: object): void
  execute(message: object): void
  submittedNamedStatements: Record<string, string>
}

/** knex's BEGIN (`BEGIN;`, or `BEGIN TRANSACTION ISOLATION LEVEL …;`), and the `COMMIT;` and `ROLLBACK` that end it. */
const BEGIN = /^BEGIN\b[^;]*;$/i
const END = /^(COMMIT|ROLLBACK);?$/i

/** The BEGIN each connection owes: knex has asked for it, and nothing has been sent yet. */
const owedBegins = new WeakMap<object, string>()

/** What knex gets for a statement answered without sending it. */
function answered(query: CompiledQuery, command: string): Promise<CompiledQuery> {
  query.response = { command, rowCount: null, rows: [], fields: [] }
  return Promise.resolve(query)
}

/**
 * knex's Postgres dialect, with each transaction's BEGIN sent in the same write as its first statement, so that
 * both are answered in one round trip (docs/performance.md, "BEGIN with the first statement"). knex's `BEGIN;` is answered at once and
 * owed by the connection; the next statement on it carries the BEGIN: in the extended protocol, BEGIN's Parse, Bind
 * and Execute before the statement's messages and their one Sync; a statement without parameters, which pg sends
 * as a simple query, as one text after it. A transaction that ends while it still owes its BEGIN ran nothing, and
 * sends neither its BEGIN nor its COMMIT or ROLLBACK. A SAVEPOINT is a statement like any other: the first one of a
 * transaction carries its BEGIN. (knex's `.stream()` runs through pg-query-stream, which Roost does not install; a
 * stream could not carry a BEGIN, and would have to send it first.)
 */
export class BeginWithFirstStatementClient extends KnexPgClient {
  /** Set on the client knex makes for each transaction. */
  declare transacting?: boolean

  _query(connection: PgClient, query: CompiledQuery): Promise<CompiledQuery> {
    const begin = owedBegins.get(connection)
    if (begin === undefined) {
      if (!this.transacting || !BEGIN.test(query.sql) || query.bindings?.length)
        return super._query(connection, query)
      owedBegins.set(connection, query.sql)
      return answered(query, 'BEGIN')
    }
    owedBegins.delete(connection)
    const end = END.exec(query.sql)
    if (end) return answered(query, end[1].toUpperCase())
    return queryAfterBegin(connection, begin, query)
  }

  /**
   * A connection goes back to the pool owing nothing, or its next user would run in a transaction it did not open.
   * knex ends every transaction before it lets go of its connection; this holds should it ever not.
   */
  releaseConnection(connection: PgClient): Promise<void> {
    owedBegins.delete(connection)
    return super.releaseConnection(connection)
  }
}

/** Runs a statement of a transaction with the BEGIN the connection owed, as knex's own `_query` runs one. */
function queryAfterBegin(connection: PgClient, begin: string, query: CompiledQuery): Promise<CompiledQuery> {
  const withBegin = new QueryAfterBegin(begin, {
    text: query.sql,
    values: query.bindings ?? [],
    ...query.options,
  })
  return new Promise((resolve, reject) => {
    connection.query(withBegin, (err, response) => {
      if (!err) return resolve(Object.assign(query, { response }))
      if (!withBegin.begun) failedToBegin(connection, begin, err)
      reject(err)
    })
  })
}

/**
 * The statement that carried a BEGIN failed before the BEGIN ran: pg refused to send it, or the server (or a
 * pooler in front of it) refused the first message. What the transaction sends next must not run outside it, and
 * may already wait in pg's queue: the connection is closed, and its pool drops it. The BEGIN is owed again, so
 * that knex's ROLLBACK sends nothing and the transaction fails with this error.
 */
function failedToBegin(connection: PgClient, begin: string, err: Error) {
  owedBegins.set(connection, begin)
  connection.__knex__disposed = err
  connection.connection.stream.destroy()
}

/**
 * pg's Query, preceded by a BEGIN in the same write and answered with it (node_modules/pg/lib/query.js,
 * client.js). The client records a named statement as parsed at the first ParseComplete it gets while the query
 * is active, which is BEGIN's: the name is hidden until BEGIN's CommandComplete, so that only the statement's own
 * ParseComplete records it, and a Parse that fails leaves no record behind.
 */
class QueryAfterBegin extends PgQuery {
  /** The server has run this query's BEGIN, or will: the transaction is open, whatever became of the statement. */
  begun = false
  declare text: string
  declare requiresPreparation: () => boolean
  private beginAnswered = false
  private hidingName = false
  private writingStatement = false
  /** Set through `name` by pg's constructor, before this class's fields: declared, so that they do not reset it. */
  declare private statementName?: string

  constructor(
    private readonly begin: string,
    config: object,
  ) {
    super(config)
  }

  get name(): string | undefined {
    return this.hidingName ? undefined : this.statementName
  }

  set name(name: string | undefined) {
    this.statementName = name
  }

  submit(connection: PgWire): Error | null {
    // pg sends a statement without parameters as a simple query, which may hold several statements: BEGIN is one more.
    if (!this.requiresPreparation()) this.text = `${this.begin} ${this.text}`
    return super.submit(connection)
  }

  prepare(connection: PgWire): void {
    // The unnamed statement and portal, which the statement's own messages then replace (an unnamed Parse, any Bind).
    connection.parse({ text: this.begin })
    connection.bind({})
    connection.execute({})
    this.writingStatement = true
    try {
      super.prepare(connection)
    } finally {
      this.writingStatement = false
    }
    this.hidingName = true
  }

  handleCommandComplete(message: unknown, connection: PgWire): void {
    if (this.beginAnswered) return super.handleCommandComplete(message, connection)
    this.beginAnswered = this.begun = true
    this.hidingName = false
  }

  handleError(err: Error, connection: PgWire): void {
    // A value pg could not write: it has written BEGIN, then a Close and the Sync, which the server runs.
    if (this.writingStatement) this.begun = true
    if (this.hidingName) {
      // BEGIN failed, and the server skipped the statement's Parse: the client could not see the name to forget it.
      this.hidingName = false
      if (this.statementName) delete connection.submittedNamedStatements[this.statementName]
    }
    return super.handleError(err, connection)
  }
}
