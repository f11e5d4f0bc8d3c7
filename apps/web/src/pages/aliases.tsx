import { useState } from 'preact/hooks'
import { Action, Check, ErrorText, Form, Loading, TextField, useLoad } from '../ui'
import type { Api } from '../api'
import type { Page } from './types'

interface Alias {
  uri: string
}

/**
 * Moving (Mastodon's /settings/aliases and /settings/migration on one page; docs/federation.md, "Moved accounts"):
 * the aliases this account lists as `alsoKnownAs` (GET/POST/DELETE /api/v1/accounts/aliases), which a move *to*
 * this account needs, and moving *away* (POST /api/v1/accounts/move, with the password), after a confirmation.
 */
export const aliases: Page = {
  title: 'Moving',
  area: 'settings',
  scopes: ['read:accounts', 'write:accounts'],
  Component({ api }) {
    const [acct, setAcct] = useState('')
    const list = useLoad(() => api.get<Alias[]>('/api/v1/accounts/aliases'))
    return (
      <>
        <h2>Moving here from another account</h2>
        <p class="hint">
          To move an old account to this one, first name the old account here as an alias; then start the move
          from the old account's server.
        </p>
        <Form
          run={() => api.send('POST', '/api/v1/accounts/aliases', { acct: acct.trim() })}
          onDone={() => {
            setAcct('')
            list.reload()
          }}
          submit="Add alias"
          busy="Adding…"
          label="Add an alias"
        >
          <TextField
            label="Handle of the old account (user@server)"
            value={acct}
            onInput={setAcct}
            required
            maxLength={500}
          />
        </Form>
        {list.loading && !list.data ? <Loading /> : null}
        <ErrorText error={list.error} />
        <ul class="items" aria-label="Aliases">
          {list.data?.length === 0 ? <li class="item muted">No aliases.</li> : null}
          {list.data?.map((a) => (
            <li class="item row" key={a.uri}>
              <span>{a.uri}</span>
              <Action
                kind="secondary"
                run={() => api.send('DELETE', '/api/v1/accounts/aliases', { acct: a.uri })}
                onDone={list.reload}
                busy="Removing…"
                label={`Remove alias ${a.uri}`}
              >
                Remove
              </Action>
            </li>
          ))}
        </ul>
        <MoveForm api={api} />
      </>
    )
  },
}

function MoveForm({ api }: { api: Api }) {
  const [target, setTarget] = useState('')
  const [password, setPassword] = useState('')
  const [sure, setSure] = useState(false)
  const [moved, setMoved] = useState<string>()
  return (
    <>
      <h2>Moving away to another account</h2>
      <div class="warning">
        <p>
          <strong>Moving cannot be undone from here.</strong> Your followers are moved to the new account and
          this account is marked as moved: it stays readable but can no longer post. Your posts and other data
          are not moved.
        </p>
        <p>The new account must first name this account as an alias on its server.</p>
      </div>
      {moved ? (
        <p role="status">This account has moved to @{moved}.</p>
      ) : (
        <Form
          run={async () => {
            if (!sure) throw new Error('Tick the box to confirm the move.')
            return api.send<{ moved_to: string }>('POST', '/api/v1/accounts/move', {
              acct: target.trim(),
              current_password: password,
            })
          }}
          onDone={(r) => {
            setPassword('')
            setMoved(r.moved_to)
          }}
          submit="Move this account"
          busy="Moving…"
          label="Move to another account"
        >
          <TextField
            label="Handle of the new account (user@server)"
            value={target}
            onInput={setTarget}
            required
            maxLength={500}
          />
          <TextField
            label="Your current password"
            type="password"
            autoComplete="current-password"
            value={password}
            onInput={setPassword}
            required
          />
          <Check
            label="I understand that my followers move to the new account and this account stops posting"
            checked={sure}
            onChange={setSure}
          />
        </Form>
      )}
    </>
  )
}
