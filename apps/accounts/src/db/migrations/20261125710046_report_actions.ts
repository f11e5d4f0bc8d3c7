import type { Knex } from '@roost/db'

/** Who resolved a report (docs/discovery.md, "Reports"): Admin::Report's `action_taken_by_account`. */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('reports', (t) => {
    t.bigInteger('action_taken_by_account_id').references('accounts.id').onDelete('SET NULL')
    t.index(['action_taken_at'])
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('reports', (t) => {
    t.dropIndex(['action_taken_at'])
    t.dropColumn('action_taken_by_account_id')
  })
}
