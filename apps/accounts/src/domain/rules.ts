import type { Knex } from '@roost/db'
import type { RuleRow } from '../db/rows'

/** The server's rules in their order (priority, then age); removed ones are kept for reports but not listed. */
export const activeRules = (db: Knex): Promise<RuleRow[]> =>
  db('rules')
    .whereNull('deleted_at')
    .orderBy([{ column: 'priority' }, { column: 'id' }])

/** Mastodon's Rule entity (`translations` since 4.4: Roost keeps none). */
export const renderRule = (r: RuleRow) => ({ id: String(r.id), text: r.text, hint: r.hint, translations: {} })

/** Adds a rule at the end, or at `priority`. */
export async function addRule(trx: Knex, rule: { text: string; hint?: string; priority?: number }) {
  const priority =
    rule.priority ??
    Number(
      (await trx('rules').whereNull('deleted_at').max<{ max: number | null }[]>('priority as max'))[0]!.max ??
        -1,
    ) + 1
  const [row] = await trx('rules')
    .insert({ text: rule.text, hint: rule.hint ?? '', priority })
    .returning('*')
  return row as RuleRow
}

/** Removes a rule from the list (reports that cite it keep naming it). Whether it existed. */
export async function removeRule(trx: Knex, id: string): Promise<boolean> {
  const n = await trx('rules').where({ id }).whereNull('deleted_at').update({ deleted_at: trx.fn.now() })
  return n > 0
}
