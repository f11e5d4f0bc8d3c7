import { useState } from 'preact/hooks'
import { Action, ErrorText, Form, Loading, TextField, useLoad, When } from '../../ui'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface Relay {
  id: string
  inbox_url: string
  state: 'idle' | 'pending' | 'accepted' | 'rejected'
  enabled: boolean
  created_at: string
}

const STATES: Record<Relay['state'], string> = {
  idle: 'Disabled',
  pending: 'Waiting for the relay to accept',
  accepted: 'Accepted',
  rejected: 'Rejected by the relay',
}

/**
 * Relays (Roost's /api/v1/admin/relays, docs/federation.md "Relays"): a handful at most, so one unpaged list, as
 * the API answers it. Adding one follows it at once; disabling sends the Undo.
 */
export const relays: Page = {
  title: 'Relays',
  area: 'admin',
  scopes: ['admin:read', 'admin:write'],
  permission: PERMISSIONS.manage_federation,
  menu: 'Relays',
  Component({ api }) {
    const [inbox, setInbox] = useState('')
    const list = useLoad(() => api.get<Relay[]>('/api/v1/admin/relays'))
    const send = (method: 'POST' | 'DELETE', path: string) => () => api.send(method, path)
    return (
      <>
        <details class="panel">
          <summary>Add a relay</summary>
          <Form
            run={() => api.send('POST', '/api/v1/admin/relays', { inbox_url: inbox })}
            onDone={() => {
              setInbox('')
              list.reload()
            }}
            submit="Add relay"
            done="Relay added: this server asked to join it."
            label="Add a relay"
          >
            <TextField label="The relay's inbox address" value={inbox} onInput={setInbox} required />
          </Form>
        </details>
        {list.loading && !list.data ? <Loading /> : null}
        <ErrorText error={list.error} />
        {list.data && !list.data.length ? <p class="muted">No relay yet.</p> : null}
        {list.data?.length ? (
          <ul class="items" aria-label="Relays">
            {list.data.map((r) => (
              <li class="item row" key={r.id}>
                <span>
                  <code>{r.inbox_url}</code> <span class="badge">{STATES[r.state]}</span>{' '}
                  <span class="muted">
                    added <When at={r.created_at} />
                  </span>
                </span>
                {r.enabled ? (
                  <Action
                    kind="secondary"
                    run={send('POST', `/api/v1/admin/relays/${r.id}/disable`)}
                    onDone={list.reload}
                  >
                    Disable {r.inbox_url}
                  </Action>
                ) : (
                  <Action run={send('POST', `/api/v1/admin/relays/${r.id}/enable`)} onDone={list.reload}>
                    Enable {r.inbox_url}
                  </Action>
                )}
                <Action
                  kind="danger"
                  run={send('DELETE', `/api/v1/admin/relays/${r.id}`)}
                  onDone={list.reload}
                >
                  Remove {r.inbox_url}
                </Action>
              </li>
            ))}
          </ul>
        ) : null}
      </>
    )
  },
}
