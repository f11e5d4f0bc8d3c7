/**
 * Hashtags as Mastodon reads them in a status's text (docs/hashtags.md): the `Tag::HASHTAG_RE` pattern, the
 * Extractor and the HashtagNormalizer (NFKC, lower case, Latin letters folded to ASCII, invalid characters
 * dropped). Rules on text alone, knowing no database: domain/tags.ts stores tags by them, and the REST and
 * ActivityPub renderers link and match tags with them.
 */

// Ruby's POSIX classes on Unicode strings: [[:word:]], [[:alpha:]], [[:alnum:]].
const WORD = '\\p{L}\\p{M}\\p{N}\\p{Pc}'
const ALPHA = '\\p{Alpha}'
const SEPARATORS = '_\\u00B7\\u30FB\\u200c'
const FIRST_SEQUENCE = `[${WORD}_][${WORD}${SEPARATORS}]*[${ALPHA}${SEPARATORS}][${WORD}${SEPARATORS}]*[${WORD}_]`
const LAST_SEQUENCE = `[${WORD}_]*[${ALPHA}][${WORD}_]*`
const NAME = `${FIRST_SEQUENCE}|${LAST_SEQUENCE}`

/** A hashtag in a status's text: `#` or `＃` at the start or after white space, then a name with a letter in it. */
export const HASHTAG = new RegExp(`(?<=^|\\s)[#＃](${NAME})`, 'gu')
/** A whole tag name (`GET /api/v1/tags/:name` refuses others with 404). */
const HASHTAG_NAME = new RegExp(`^(?:${NAME})$`, 'iu')
const INVALID_CHARS = new RegExp(`[^${ALPHA}\\p{Nd}\\u0E47-\\u0E4E${SEPARATORS}]`, 'gu')

const NON_ASCII =
  'ÀÁÂÃÄÅàáâãäåĀāĂăĄąÇçĆćĈĉĊċČčÐðĎďĐđÈÉÊËèéêëĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĦħÌÍÎÏìíîïĨĩĪīĬĭĮįİıĴĵĶķĸĹĺĻļĽľĿŀŁłÑñŃńŅņŇňŉŊŋÒÓÔÕÖØòóôõöøŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšſŢţŤťŦŧÙÚÛÜùúûüŨũŪūŬŭŮůŰűŲųŴŵÝýÿŶŷŸŹźŻżŽž'
const ASCII =
  'AAAAAAaaaaaaAaAaAaCcCcCcCcCcDdDdDdEEEEeeeeEeEeEeEeEeGgGgGgGgHhHhIIIIiiiiIiIiIiIiIiJjKkkLlLlLlLlLlNnNnNnNnnNnOOOOOOooooooOoOoOoRrRrRrSsSsSsSssTtTtTtUUUUuuuuUuUuUuUuUuUuWwYyyYyYZzZzZz'
const FOLD = new Map([...NON_ASCII].map((c, i) => [c, ASCII[i]!]))

/** Mastodon's HashtagNormalizer: the name a tag is stored and matched under. */
export function normalizeTag(name: string): string {
  const folded = [...name.normalize('NFKC').toLowerCase()].map((c) => FOLD.get(c) ?? c).join('')
  return folded.replace(INVALID_CHARS, '')
}

/** The spelling shown for a tag: as written, invalid characters dropped. */
export const displayName = (name: string) => name.replace(INVALID_CHARS, '')

export const isTagName = (name: string) => HASHTAG_NAME.test(name)

/**
 * The hashtags of a status's text, as written, in order (Mastodon's Extractor): a tag running into a URL
 * (`#tag https://…` written `#taghttps://…`) loses the `http`/`https`.
 */
export function extractHashtags(text: string): string[] {
  const names: string[] = []
  for (const m of text.matchAll(HASHTAG)) {
    let name = m[1]!
    if (text.startsWith('://', m.index + m[0].length)) name = name.replace(/(.+)https?$/u, '$1')
    names.push(name)
  }
  return names
}
