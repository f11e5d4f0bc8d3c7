/** SQL helpers that know no table. */

/** A list of ids as one Postgres array parameter (`{1,2,3}`), not one parameter per id. */
export const bigintArray = (ids: string[]) => `{${ids.join(',')}}`

/** `%` and `_` are wildcards in LIKE: a search for `a_b` means those three characters. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)
