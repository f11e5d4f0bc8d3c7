import { useState } from 'preact/hooks'
import { Action, Form, PagedList, TextField } from '../../ui'
import { pages } from '../common'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface CanonicalEmailBlock {
  id: string
  canonical_email_hash: string
}

/**
 * Blocked e-mail addresses (Mastodon's /api/v1/admin/canonical_email_blocks): kept as the hash of the address's
 * canonical form (dots and +tags removed), so the address itself is not stored; a test tells whether one matches.
 */
export const canonicalEmailBlocks: Page = {
  title: 'Blocked e-mail addresses',
  area: 'admin',
  scopes: ['admin:read:canonical_email_blocks', 'admin:write:canonical_email_blocks'],
  permission: PERMISSIONS.manage_blocks,
  menu: 'Blocked e-mail addresses',
  Component({ api }) {
    const [email, setEmail] = useState('')
    const [probe, setProbe] = useState('')
    const [result, setResult] = useState('')
    const [version, setVersion] = useState(0)
    return (
      <>
        <Form
          run={() => api.send('POST', '/api/v1/admin/canonical_email_blocks', { email })}
          onDone={() => {
            setEmail('')
            setVersion((v) => v + 1)
          }}
          submit="Block"
          done="Blocked."
          label="Block an e-mail address"
        >
          <TextField
            label="E-mail address"
            type="email"
            hint="Its variants (dots, +tags) are blocked too; only its hash is kept."
            value={email}
            onInput={setEmail}
            required
          />
        </Form>
        <Form
          run={() =>
            api.send<CanonicalEmailBlock[]>('POST', '/api/v1/admin/canonical_email_blocks/test', {
              email: probe,
            })
          }
          onDone={(matches) =>
            setResult(matches.length ? `${probe} is blocked.` : `${probe} is not blocked.`)
          }
          submit="Test"
          label="Test an e-mail address"
        >
          <TextField label="Address to test" type="email" value={probe} onInput={setProbe} required />
        </Form>
        <p role="status" aria-live="polite">
          {result}
        </p>
        <PagedList<CanonicalEmailBlock>
          {...pages<CanonicalEmailBlock>(api, '/api/v1/admin/canonical_email_blocks')}
          version={version}
          label="Blocked e-mail addresses"
          empty="No e-mail address is blocked."
          item={(b, reload) => (
            <li class="item row" key={b.id}>
              <code>{b.canonical_email_hash}</code>
              <Action
                kind="secondary"
                run={() => api.send('DELETE', `/api/v1/admin/canonical_email_blocks/${b.id}`)}
                onDone={reload}
                label={`Unblock the address of hash ${b.canonical_email_hash.slice(0, 12)}`}
              >
                Unblock
              </Action>
            </li>
          )}
        />
      </>
    )
  },
}
