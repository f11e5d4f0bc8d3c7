import { useState } from 'preact/hooks'
import { Action, Form, PagedList, TextField } from '../ui'
import type { Account } from './common'
import { AccountLine, pages } from './common'
import type { Page } from './types'

/** Blocked and muted accounts, and blocked domains: each list paged by its Link header. */
export const blocks: Page = {
  title: 'Blocks and mutes',
  area: 'settings',
  scopes: ['read:blocks', 'write:blocks', 'read:mutes', 'write:mutes', 'write:follows'],
  menu: 'Blocks and mutes',
  Component({ api }) {
    const [domain, setDomain] = useState('')
    const [version, setVersion] = useState(0)
    return (
      <>
        <h2>Blocked accounts</h2>
        <PagedList<Account>
          {...pages<Account>(api, '/api/v1/blocks')}
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
        <PagedList<Account>
          {...pages<Account>(api, '/api/v1/mutes')}
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
            setVersion((v) => v + 1)
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
