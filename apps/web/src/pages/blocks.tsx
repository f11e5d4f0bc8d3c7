import { useState } from 'preact/hooks'
import { Action, Form, PagedList, TextField } from '../ui'
import type { Account } from './common'
import { AccountLine, lookUp, pages } from './common'
import type { Page } from './types'

/** Blocked and muted accounts, and blocked domains: each list paged by its Link header. */
export const blocks: Page = {
  title: 'Blocks and mutes',
  area: 'settings',
  scopes: ['read:blocks', 'write:blocks', 'read:mutes', 'write:mutes', 'write:follows', 'read:accounts'],
  Component({ api }) {
    const [domain, setDomain] = useState('')
    const [version, setVersion] = useState(0)
    const [blocking, setBlocking] = useState('')
    const [muting, setMuting] = useState('')
    const changed = () => setVersion((v) => v + 1)
    return (
      <>
        <h2>Blocked accounts</h2>
        <Form
          run={async () => api.send('POST', `/api/v1/accounts/${(await lookUp(api, blocking)).id}/block`)}
          onDone={() => {
            setBlocking('')
            changed()
          }}
          submit="Block"
          label="Block an account"
        >
          <TextField
            label="Account to block (user or user@server)"
            value={blocking}
            onInput={setBlocking}
            required
          />
        </Form>
        <PagedList<Account>
          {...pages<Account>(api, '/api/v1/blocks')}
          version={version}
          label="Blocked accounts"
          empty="You block no one."
          item={(a, reload) => (
            <li class="item row" key={a.id}>
              <AccountLine account={a} />
              <Action
                kind="secondary"
                run={() => api.send('POST', `/api/v1/accounts/${a.id}/unblock`)}
                onDone={reload}
              >
                Unblock @{a.acct}
              </Action>
            </li>
          )}
        />
        <h2>Muted accounts</h2>
        <Form
          run={async () => api.send('POST', `/api/v1/accounts/${(await lookUp(api, muting)).id}/mute`)}
          onDone={() => {
            setMuting('')
            changed()
          }}
          submit="Mute"
          label="Mute an account"
        >
          <TextField
            label="Account to mute (user or user@server)"
            value={muting}
            onInput={setMuting}
            required
          />
        </Form>
        <PagedList<Account>
          {...pages<Account>(api, '/api/v1/mutes')}
          version={version}
          label="Muted accounts"
          empty="You mute no one."
          item={(a, reload) => (
            <li class="item row" key={a.id}>
              <AccountLine account={a} />
              <Action
                kind="secondary"
                run={() => api.send('POST', `/api/v1/accounts/${a.id}/unmute`)}
                onDone={reload}
              >
                Unmute @{a.acct}
              </Action>
            </li>
          )}
        />
        <h2>Blocked domains</h2>
        <Form
          run={() => api.send('POST', '/api/v1/domain_blocks', { domain })}
          onDone={() => {
            setDomain('')
            changed()
          }}
          submit="Block domain"
          label="Block a domain"
        >
          <TextField label="Domain" value={domain} onInput={setDomain} required />
        </Form>
        <PagedList<string>
          {...pages<string>(api, '/api/v1/domain_blocks')}
          version={version}
          label="Blocked domains"
          empty="You block no domain."
          item={(d, reload) => (
            <li class="item row" key={d}>
              <span>{d}</span>
              <Action
                kind="secondary"
                run={() => api.send('DELETE', '/api/v1/domain_blocks', { domain: d })}
                onDone={reload}
              >
                Unblock {d}
              </Action>
            </li>
          )}
        />
      </>
    )
  },
}
