import type { AccountRow } from '../db/rows'
import { inboxesOf } from './transport/delivery-queue'
import { htmlToText, parseAcct, parseActor, RemoteAccountError } from './remote-accounts'

const actor = (over: Record<string, unknown> = {}) => ({
  id: 'https://remote.example/users/bob',
  type: 'Person',
  preferredUsername: 'bob',
  inbox: 'https://remote.example/users/bob/inbox',
  publicKey: {
    id: 'https://remote.example/users/bob#main-key',
    owner: 'https://remote.example/users/bob',
    publicKeyPem: 'PEM',
  },
  ...over,
})

describe('parseActor', () => {
  it('reads an actor as Mastodon stores it', () => {
    expect(
      parseActor(
        actor({
          name: 'Bob',
          summary: '<p>Hi &amp; bye<br/>x</p><p>two</p>',
          endpoints: { sharedInbox: 'https://remote.example/inbox' },
          manuallyApprovesFollowers: true,
          type: 'Service',
          icon: { type: 'Image', url: 'https://remote.example/a.png' },
          attachment: [{ type: 'PropertyValue', name: 'Web', value: '<a href="https://x.example">x</a>' }],
        }),
      ),
    ).toMatchObject({
      uri: 'https://remote.example/users/bob',
      domain: 'remote.example',
      username: 'bob',
      display_name: 'Bob',
      note: 'Hi & bye\nx\n\ntwo',
      shared_inbox_url: 'https://remote.example/inbox',
      locked: true,
      bot: true,
      public_key_id: 'https://remote.example/users/bob#main-key',
      avatar_remote_url: 'https://remote.example/a.png',
      // The value keeps its link, sanitised (docs/federation.md, "Profile fields").
      fields: JSON.stringify([
        {
          name: 'Web',
          value: '<a href="https://x.example" rel="nofollow noopener" target="_blank">x</a>',
          verified_at: null,
        },
      ]),
    })
  })

  it.each([
    ['no id', { id: undefined }],
    ['not an actor', { type: 'Note' }],
    ['no username', { preferredUsername: 'a b' }],
    ['no inbox', { inbox: 'javascript:alert(1)' }],
    [
      'a key of another actor',
      { publicKey: { id: 'https://x.example/k', owner: 'https://x.example/u', publicKeyPem: 'P' } },
    ],
  ])('refuses an actor with %s', (_what, over) => {
    expect(() => parseActor(actor(over))).toThrow(RemoteAccountError)
  })

  it('drops markup and scripts from remote HTML', () => {
    expect(htmlToText('<p>a<script>alert(1)</script> <img src=x onerror=y>b &#x3C;i&#62;</p>')).toBe(
      'a b <i>',
    )
  })
})

it('parses user@domain addresses, ports included', () => {
  expect(parseAcct('@bob@Remote.Example:4100')).toEqual({ username: 'bob', domain: 'remote.example:4100' })
  expect(parseAcct('acct:bob@remote.example')).toEqual({ username: 'bob', domain: 'remote.example' })
  expect(parseAcct('bob')).toBeUndefined()
  expect(parseAcct('bob@evil/path')).toBeUndefined()
})

it('delivers to one inbox per recipient alone, one shared inbox per host for many', () => {
  const remote = (username: string, host: string, shared = true) =>
    ({
      username,
      domain: host,
      inbox_url: `https://${host}/users/${username}/inbox`,
      shared_inbox_url: shared ? `https://${host}/inbox` : null,
    }) as AccountRow
  expect(inboxesOf([remote('a', 'one.example')])).toEqual(['https://one.example/users/a/inbox'])
  // The same account twice (a follower who is also mentioned) is still one recipient: its own inbox.
  expect(inboxesOf([remote('a', 'one.example'), remote('a', 'one.example')])).toEqual([
    'https://one.example/users/a/inbox',
  ])
  expect(
    inboxesOf([
      remote('a', 'one.example'),
      remote('b', 'one.example'),
      remote('c', 'two.example', false),
      { username: 'local', domain: null } as AccountRow,
    ]),
  ).toEqual(['https://one.example/inbox', 'https://two.example/users/c/inbox'])
})
