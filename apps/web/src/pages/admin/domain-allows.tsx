import { useState } from 'preact/hooks'
import { Action, Form, PagedList, TextField, When } from '../../ui'
import { pages } from '../common'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface DomainAllow {
  id: string
  domain: string
  created_at: string
}

/** Allowed servers (Mastodon's /api/v1/admin/domain_allows): the only ones federated with in limited mode. */
export const domainAllows: Page = {
  title: 'Allowed servers',
  area: 'admin',
  scopes: ['admin:read:domain_allows', 'admin:write:domain_allows'],
  permission: PERMISSIONS.manage_federation,
  menu: 'Allowed servers',
  Component({ api }) {
    const [domain, setDomain] = useState('')
    const [version, setVersion] = useState(0)
    return (
      <>
        <p class="muted">
          In limited federation mode (<a href="/admin/settings">server settings</a>) the server federates with
          these servers only.
        </p>
        <Form
          run={() => api.send('POST', '/api/v1/admin/domain_allows', { domain })}
          onDone={() => {
            setDomain('')
            setVersion((v) => v + 1)
          }}
          submit="Allow"
          done="Allowed."
          label="Allow a server"
        >
          <TextField label="Domain" value={domain} onInput={setDomain} required />
        </Form>
        <PagedList<DomainAllow>
          {...pages<DomainAllow>(api, '/api/v1/admin/domain_allows')}
          version={version}
          label="Allowed servers"
          empty="No server is allowed."
          item={(a, reload) => (
            <li class="item row" key={a.id}>
              <span>
                <strong>{a.domain}</strong> <span class="muted">since</span> <When at={a.created_at} />
              </span>
              <Action
                kind="secondary"
                run={() => api.send('DELETE', `/api/v1/admin/domain_allows/${a.id}`)}
                onDone={reload}
              >
                Stop allowing {a.domain}
              </Action>
            </li>
          )}
        />
      </>
    )
  },
}
