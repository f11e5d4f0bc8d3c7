import { Action, ErrorText, Loading, useLoad, When } from '../../ui'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'
import { AccountActionForm } from './account-action'
import type { AdminAccount } from './common'
import { AccountState, AdminAccountLine } from './common'

/** One account: what the server knows of it, and the moderation actions. */
export const account: Page = {
  title: 'Account',
  area: 'admin',
  scopes: ['admin:read:accounts', 'admin:write:accounts'],
  permission: PERMISSIONS.manageUsers,
  Component({ api, params }) {
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
        </div>
        <h3>Take an action</h3>
        <AccountActionForm api={api} accountId={a.id} acct={a.account.acct} onDone={loaded.reload} />
      </>
    )
  },
}
