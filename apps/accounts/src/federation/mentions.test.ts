import type { AccountRow } from '../db/rows'
import { urlsOf } from '../entities/account'
import { ANY_MENTION, statusHtml } from '../text/status'

// Remote mentions in a status's text (docs/federation.md, "Mentions of remote accounts").
const found = (text: string) => [...text.matchAll(ANY_MENTION)].map((m) => [m[1], m[2]])

describe('ANY_MENTION', () => {
  it('finds local and remote addresses, a host with a port too', () => {
    expect(found('hi @alice and @bob@example.social, @carol@127.0.0.1:4100!')).toEqual([
      ['alice', undefined],
      ['bob', 'example.social'],
      ['carol', '127.0.0.1:4100'],
    ])
  })

  it('ignores e-mail addresses, URLs and a trailing dot', () => {
    expect(found('mail me@example.com or see https://x.example/@dan')).toEqual([])
    expect(found('thanks @erin@example.org.')).toEqual([['erin', 'example.org']])
  })
})

describe('statusHtml with remote mentions', () => {
  const urls = urlsOf({ PUBLIC_URL: 'https://roost.example' })
  const account = (over: Partial<AccountRow>) => over as AccountRow
  const bob = account({
    username: 'bob',
    domain: 'example.social',
    uri: 'https://example.social/users/bob',
    url: 'https://example.social/@bob',
  })
  const alice = account({ username: 'alice', domain: null })
  const mentioned = new Map([
    ['bob', bob],
    ['alice', alice],
  ])

  it('links a mentioned remote account to its profile on its server, and a local one to ours', () => {
    const html = statusHtml('@bob@example.social and @alice', mentioned, urls)
    expect(html).toContain(
      '<a href="https://example.social/@bob" class="u-url mention">@<span>bob</span></a>',
    )
    expect(html).toContain(
      '<a href="https://roost.example/@alice" class="u-url mention">@<span>alice</span></a>',
    )
  })

  it('leaves an address that is not a mention as text, and never links a remote name to a local account', () => {
    expect(statusHtml('@alice@other.example', mentioned, urls)).toBe('<p>@alice@other.example</p>')
    expect(statusHtml('@bob', mentioned, urls)).toBe('<p>@bob</p>')
  })

  it('links the actor id when the profile URL is not http(s)', () => {
    const odd = new Map([['bob', { ...bob, url: 'javascript:alert(1)' }]])
    expect(statusHtml('@bob@example.social', odd, urls)).toContain('href="https://example.social/users/bob"')
  })
})
