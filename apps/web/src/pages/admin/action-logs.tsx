import { useState } from 'preact/hooks'
import { PagedList, TextField, When } from '../../ui'
import type { Account } from '../common'
import { AccountLine, pages } from '../common'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface ActionLog {
  id: string
  action: string
  target_type: string
  target_id: string | null
  human_identifier: string | null
  created_at: string
  account: Account | null
}

/** Where a log entry's target is shown in the app, when it has a page. */
function targetLink(log: ActionLog): string | undefined {
  if (!log.target_id) return undefined
  if (log.target_type === 'Account') return `/admin/accounts/${log.target_id}`
  if (log.target_type === 'Report') return `/admin/reports/${log.target_id}`
  return undefined
}

/**
 * The audit log (Roost's GET /api/v1/admin/action_logs): who did what to what, newest first, paged by Link;
 * searched by the verb, the staff member's account id and the target.
 */
export const actionLogs: Page = {
  title: 'Audit log',
  area: 'admin',
  scopes: ['admin:read'],
  permission: PERMISSIONS.view_audit_log,
  menu: 'Audit log',
  Component({ api }) {
    const query = new URLSearchParams(location.search)
    const [action, setAction] = useState(query.get('action') ?? '')
    const [accountId, setAccountId] = useState(query.get('account_id') ?? '')
    const [targetType, setTargetType] = useState(query.get('target_type') ?? '')
    const [targetId, setTargetId] = useState(query.get('target_id') ?? '')
    const filters = {
      action: action.trim(),
      account_id: accountId.trim(),
      target_type: targetType.trim(),
      target_id: targetId.trim(),
    }
    return (
      <>
        <div class="filters" role="search" aria-label="Search the audit log">
          <TextField
            label="Action"
            hint="For example suspend, resolve, create"
            value={action}
            onInput={setAction}
          />
          <TextField label="By account id" value={accountId} onInput={setAccountId} />
          <TextField
            label="Target type"
            hint="Account, Report, UserRole, Webhook…"
            value={targetType}
            onInput={setTargetType}
          />
          <TextField label="Target id" value={targetId} onInput={setTargetId} />
        </div>
        <PagedList<ActionLog>
          {...pages<ActionLog>(api, '/api/v1/admin/action_logs', filters)}
          version={JSON.stringify(filters)}
          label="Audit log"
          empty="Nothing logged here."
          item={(log) => {
            const href = targetLink(log)
            const target = `${log.target_type} ${log.human_identifier ?? log.target_id ?? ''}`.trim()
            return (
              <li class="item" key={log.id}>
                <p>
                  {log.account ? (
                    <AccountLine account={log.account} />
                  ) : (
                    <span class="muted">(deleted account)</span>
                  )}{' '}
                  <span class="badge">{log.action}</span> {href ? <a href={href}>{target}</a> : target}
                </p>
                <p class="muted">
                  <When at={log.created_at} />
                </p>
              </li>
            )
          }}
        />
      </>
    )
  },
}
