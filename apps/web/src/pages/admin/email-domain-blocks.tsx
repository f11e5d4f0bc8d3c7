import { useState } from 'preact/hooks'
import { Action, Form, PagedList, TextField, When } from '../../ui'
import { pages } from '../common'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface EmailDomainBlock {
  id: string
  domain: string
  created_at: string
}

/** Blocked e-mail domains (Mastodon's /api/v1/admin/email_domain_blocks): sign-ups with them are refused. */
export const emailDomainBlocks: Page = {
  title: 'Blocked e-mail domains',
  area: 'admin',
  scopes: ['admin:read:email_domain_blocks', 'admin:write:email_domain_blocks'],
  permission: PERMISSIONS.manage_blocks,
  menu: 'Blocked e-mail domains',
  Component({ api }) {
    const [domain, setDomain] = useState('')
    const [version, setVersion] = useState(0)
    return (
      <>
        <Form
          run={() => api.send('POST', '/api/v1/admin/email_domain_blocks', { domain })}
          onDone={() => {
            setDomain('')
            setVersion((v) => v + 1)
          }}
          submit="Block"
          done="Blocked."
          label="Block an e-mail domain"
        >
          <TextField
            label="E-mail domain"
            hint="Sign-ups with an address at this domain, or one under it, are refused."
            value={domain}
            onInput={setDomain}
            required
          />
        </Form>
        <PagedList<EmailDomainBlock>
          {...pages<EmailDomainBlock>(api, '/api/v1/admin/email_domain_blocks')}
          version={version}
          label="Blocked e-mail domains"
          empty="No e-mail domain is blocked."
          item={(b, reload) => (
            <li class="item row" key={b.id}>
              <span>
                <strong>{b.domain}</strong> <span class="muted">since</span> <When at={b.created_at} />
              </span>
              <Action
                kind="secondary"
                run={() => api.send('DELETE', `/api/v1/admin/email_domain_blocks/${b.id}`)}
                onDone={reload}
              >
                Unblock {b.domain}
              </Action>
            </li>
          )}
        />
      </>
    )
  },
}
