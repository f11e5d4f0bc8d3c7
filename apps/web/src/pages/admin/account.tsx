import { useState } from 'preact/hooks'
import type { Api } from '../../api'
import { Action, ErrorText, Form, Loading, Select, useLoad, When } from '../../ui'
import type { Page } from '../types'
import { can, PERMISSIONS } from '../types'
import { AccountActionForm } from './account-action'
import type { AdminAccount } from './common'
import { AccountState, AdminAccountLine } from './common'
import { Notes } from './notes'
import type { Role } from './roles'

/** Giving the account a role, or taking it away (Roost's POST /api/v1/admin/accounts/:id/role). */
function RoleForm(props: { api: Api; a: AdminAccount; onDone: () => void }) {
  const roles = useLoad(() => props.api.get<Role[]>('/api/v1/admin/roles'))
  const [roleId, setRoleId] = useState(props.a.role?.id ?? '-99')
  if (!roles.data) return roles.error ? <ErrorText error={roles.error} /> : <Loading />
  return (
    <Form
      run={() =>
        props.api.send('POST', `/api/v1/admin/accounts/${props.a.id}/role`, {
          role_id: roleId === '-99' ? '' : roleId,
        })
      }
      onDone={props.onDone}
      submit="Change role"
      done="Role changed."
      label={`Role of @${props.a.account.acct}`}
    >
      <Select
        label="Role"
        value={roleId}
        onChange={setRoleId}
        options={roles.data.map((r) => [r.id, r.id === '-99' ? 'No role (user)' : r.name])}
      />
    </Form>
  )
}

/**
 * Taking every push subscription of a local account away (Roost's POST /api/v1/admin/accounts/:id/unsubscribe_push;
 * docs/moderation.md, "Unsubscribing from push"), once the moderator has confirmed it.
 */
function UnsubscribePush(props: { api: Api; a: AdminAccount }) {
  const [confirming, setConfirming] = useState(false)
  const [done, setDone] = useState(false)
  const acct = `@${props.a.account.acct}`
  if (done)
    return (
      <p role="status">
        {acct} is unsubscribed from push: nothing more is pushed to it until its user turns push on again.
      </p>
    )
  if (!confirming)
    return (
      <div class="buttons">
        <button type="button" class="secondary" onClick={() => setConfirming(true)}>
          Unsubscribe from push…
        </button>
      </div>
    )
  return (
    <div class="warning" role="group" aria-label="Unsubscribe from push">
      <p>
        Remove every push subscription of {acct}? Its devices get no more notifications until its user turns
        push on again. Its sessions stay signed in.
      </p>
      <div class="buttons">
        <Action
          kind="danger"
          run={() => props.api.send('POST', `/api/v1/admin/accounts/${props.a.id}/unsubscribe_push`)}
          onDone={() => setDone(true)}
          busy="Unsubscribing…"
        >
          Yes, unsubscribe from push
        </Action>
        <button type="button" class="secondary" onClick={() => setConfirming(false)}>
          Cancel
        </button>
      </div>
    </div>
  )
}

/** One account: what the server knows of it, and the moderation actions. */
export const account: Page = {
  title: 'Account',
  area: 'admin',
  // `admin:read` lists the roles to give (with manage_roles).
  scopes: ['admin:read:accounts', 'admin:write:accounts', 'admin:read'],
  permission: PERMISSIONS.manage_users,
  Component({ api, params, me }) {
    const loaded = useLoad(() => api.get<AdminAccount>(`/api/v1/admin/accounts/${params.id}`), [params.id])
    if (loaded.loading && !loaded.data) return <Loading />
    if (!loaded.data) return <ErrorText error={loaded.error} />
    const a = loaded.data
    const path = `/api/v1/admin/accounts/${a.id}`
    return (
      <>
        <p>
          <a href="/admin/accounts?status=active">All accounts</a> · <a href={`/admin/reports`}>Reports</a>
        </p>
        <h2>
          <AdminAccountLine a={a} />
        </h2>
        <dl class="facts">
          <dt>State</dt>
          <dd>
            <AccountState a={a} /> {a.approved && !a.suspended && !a.silenced && !a.disabled ? 'active' : ''}
          </dd>
          <dt>Role</dt>
          <dd>{a.role?.name || 'user'}</dd>
          <dt>E-mail</dt>
          <dd>
            {a.email || '—'} {a.confirmed ? '(confirmed)' : a.domain ? '' : '(not confirmed)'}
          </dd>
          <dt>Last address</dt>
          <dd>{a.ip ?? '—'}</dd>
          <dt>Joined</dt>
          <dd>
            <When at={a.created_at} />
          </dd>
          {a.invite_request ? (
            <>
              <dt>Reason to join</dt>
              <dd>{a.invite_request}</dd>
            </>
          ) : null}
        </dl>
        <div class="buttons">
          {!a.approved ? (
            <>
              <Action run={() => api.send('POST', `${path}/approve`)} onDone={loaded.reload}>
                Approve
              </Action>
              <Action
                kind="danger"
                run={() => api.send('POST', `${path}/reject`)}
                onDone={() => location.assign('/admin/accounts')}
              >
                Reject
              </Action>
            </>
          ) : null}
          {a.suspended ? (
            <Action run={() => api.send('POST', `${path}/unsuspend`)} onDone={loaded.reload}>
              Lift the suspension
            </Action>
          ) : null}
          {a.silenced ? (
            <Action run={() => api.send('POST', `${path}/unsilence`)} onDone={loaded.reload}>
              Lift the limit
            </Action>
          ) : null}
          {a.sensitized ? (
            <Action run={() => api.send('POST', `${path}/unsensitive`)} onDone={loaded.reload}>
              Stop marking media as sensitive
            </Action>
          ) : null}
          {a.disabled ? (
            <Action run={() => api.send('POST', `${path}/enable`)} onDone={loaded.reload}>
              Enable login
            </Action>
          ) : null}
          {a.suspended && can(me, PERMISSIONS.delete_user_data) ? (
            <Action
              kind="danger"
              run={() => api.send('DELETE', path)}
              onDone={() => location.assign('/admin/accounts?status=suspended')}
            >
              Delete the account's data
            </Action>
          ) : null}
        </div>
        {!a.domain ? <UnsubscribePush api={api} a={a} /> : null}
        {can(me, PERMISSIONS.manage_roles) && !a.domain ? (
          <>
            <h3>Role</h3>
            <RoleForm api={api} a={a} onDone={loaded.reload} />
          </>
        ) : null}
        <h3>Take an action</h3>
        <AccountActionForm api={api} accountId={a.id} acct={a.account.acct} onDone={loaded.reload} />
        {can(me, PERMISSIONS.manage_reports) ? (
          <Notes api={api} path={`${path}/notes`} about={`@${a.account.acct}`} />
        ) : null}
      </>
    )
  },
}
