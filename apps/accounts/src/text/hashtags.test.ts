import { displayName, extractHashtags, isTagName, normalizeTag } from './hashtags'

describe('normalizeTag (Mastodon’s HashtagNormalizer)', () => {
  it.each([
    ['Ｓｙｎｔｈｗａｖｅ', 'synthwave'], // full-width Latin
    ['ｼｰｻｲﾄﾞﾗｲﾅｰ', 'シーサイドライナー'], // half-width Katakana
    ['BLÅHAJ', 'blahaj'], // modified Latin folded to ASCII
    ['#foo', 'foo'], // invalid characters dropped
    ['a·b', 'a·b'], // separators kept
    ['Über_Café', 'uber_cafe'],
    ['Ελληνικά', 'ελληνικά'],
  ])('%s → %s', (name, normalized) => {
    expect(normalizeTag(name)).toBe(normalized)
  })

  it('keeps the written spelling for display, without invalid characters', () => {
    expect(displayName('BLÅHAJ')).toBe('BLÅHAJ')
    expect(displayName('foo-bar')).toBe('foobar')
  })
})

describe('extractHashtags (Mastodon’s Tag::HASHTAG_RE)', () => {
  it.each([
    ['#Roost and #roost', ['Roost', 'roost']],
    ['start #a1 #1a #123 #_x', ['a1', '1a', '_x']], // a name needs a letter
    ['(#paren) x#inside #ok! #end.', ['ok', 'end']], // only at the start or after white space
    ['＃全角 #日本語 #café', ['全角', '日本語', 'café']],
    ['#a·b #foo·', ['a·b', 'foo']],
    ['#taghttps://example.com', ['tag']],
    ['line\n#next', ['next']],
  ])('%j → %j', (text, tags) => {
    expect(extractHashtags(text)).toEqual(tags)
  })

  it('accepts whole names with a letter (GET /api/v1/tags/:name)', () => {
    expect(isTagName('Roost')).toBe(true)
    expect(isTagName('日本語')).toBe(true)
    expect(isTagName('123')).toBe(false)
    expect(isTagName('foo-bar')).toBe(false)
    expect(isTagName('')).toBe(false)
  })
})
