import type { Focus } from './attachment'

/** Mastodon's limit on a media description (alt text), in characters. */
export const MAX_DESCRIPTION = 1500

/** A coordinate kept within -1.0..1.0 (the edges of the image), 0 when it is not a finite number. */
const coordinate = (value: number) => (Number.isFinite(value) ? Math.min(1, Math.max(-1, value)) : 0)

/** Ruby's String#to_f: the longest leading decimal number, else 0 ("0.5abc" → 0.5, "abc" → 0). */
const toF = (text: string) => {
  const match = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(text)
  return match ? Number(match[0]) : 0
}

/**
 * The `focus` parameter (`"x,y"`) as Mastodon's `MediaAttachment#focus=` reads it, loosely: each part as Ruby's
 * `to_f` (so a word is 0), and never a 422; blank means "leave it". Roost then keeps each coordinate within
 * -1.0..1.0 and a missing one at 0, where Mastodon stores what it got (docs/mastodon-compatibility.md, "Statuses
 * and media").
 */
export function parseFocus(value: string | undefined): Focus | undefined {
  if (value === undefined || !value.trim()) return undefined
  const [x = '', y = ''] = value.split(',')
  return { x: coordinate(toF(x)), y: coordinate(toF(y)) }
}

/**
 * An incoming Document's `focalPoint` (`[x, y]`, Mastodon's `toot:focalPoint`), held to the same range; anything
 * else is no focal point.
 */
export function focalPointOf(value: unknown): Focus | undefined {
  if (!Array.isArray(value) || value.length < 2) return undefined
  const [x, y] = value as unknown[]
  const number = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' ? toF(v) : NaN)
  if (!Number.isFinite(number(x)) || !Number.isFinite(number(y))) return undefined
  return { x: coordinate(number(x)), y: coordinate(number(y)) }
}

/** The focus of a row's `meta`, when it has one. */
export const focusOfMeta = (meta: unknown): Focus | undefined => {
  const focus = (meta as { focus?: Partial<Focus> } | null | undefined)?.focus
  return typeof focus?.x === 'number' && typeof focus.y === 'number' ? { x: focus.x, y: focus.y } : undefined
}

/**
 * An incoming attachment's alt text: its `name`, or its `summary` when a server sends it there and no `name`
 * (docs/federation.md, "Remote media"); trimmed and cut to Mastodon's 1,500 characters.
 */
export function remoteDescription(doc: { name?: unknown; summary?: unknown }): string | null {
  const pick = [doc.name, doc.summary].find((v): v is string => typeof v === 'string' && v.trim() !== '')
  return pick ? [...pick.trim()].slice(0, MAX_DESCRIPTION).join('') : null
}
