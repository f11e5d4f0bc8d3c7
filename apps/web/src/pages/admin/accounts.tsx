import { useState } from 'preact/hooks'
import { Action, PagedList, Select, TextField, When } from '../../ui'
import { pages } from '../common'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'
import type { AdminAccount } from './common'
import { AdminAccountLine } from './common'

/**
 * Accounts (GET /api/v2/admin/accounts, paged by Link): pending sign-ups first, with their reason and the buttons
 * to approve or reject them; the others by origin and state.
 */
export const accounts: Page = {
  title: 'Accounts',
  area: 'admin',
  scopes: ['admin:read:accounts', 'admin:write:accounts'],
  permission: PERMISSIONS.manage_users,
  menu: 'Accounts',
  Component({ api }) {
    const [status, setStatus] = useState(new URLSearchParams(location.search).get('status') ?? 'pending')
    const [origin, setOrigin] = useState('local')
    const [username, setUsername] = useState('')
    return (
      <>
        <div class="filters">
          <Select
            label="State"
            value={status}
            onChange={setStatus}
            options={[
              ['pending', 'Waiting for approval'],
              ['active', 'Active'],
              ['silenced', 'Limited'],
              ['suspended', 'Suspended'],
              ['disabled', 'Login disabled'],
            ]}
          />
          <Select
            label="Origin"
            value={origin}
            onChange={setOrigin}
            options={[
              ['local', 'This server'],
              ['remote', 'Other servers'],
            ]}
          />
          <TextField label="Username contains" value={username} onInput={setUsername} />
        </div>
        <PagedList<AdminAccount>
          {...pages<AdminAccount>(api, '/api/v2/admin/accounts', { status, origin, username })}
          version={`${status} ${origin} ${username}`}
          label="Accounts"
          empty="No accounts here."
          item={(a, reload) => (
            <li class="item" key={a.id}>
              <AdminAccountLine a={a} />
              <p class="muted">
                {a.email ? `${a.email} · ` : ''}joined <When at={a.created_at} />
              </p>
              {!a.approved ? (
                <>
                  <p>
                    <strong>Reason given:</strong> {a.invite_request || '(none)'}
                  </p>
                  <div class="buttons">
                    <Action
                      run={() => api.send('POST', `/api/v1/admin/accounts/${a.id}/approve`)}
                      onDone={reload}
                    >
                      Approve @{a.username}
                    </Action>
                    <Action
                      kind="danger"
                      run={() => api.send('POST', `/api/v1/admin/accounts/${a.id}/reject`)}
                      onDone={reload}
                    >
                      Reject @{a.username}
                    </Action>
                  </div>
                </>
              ) : null}
            </li>
          )}
        />
      </>
    )
  },
}
