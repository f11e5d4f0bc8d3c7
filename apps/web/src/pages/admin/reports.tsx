import { useState } from 'preact/hooks'
import { PagedList, Select, When } from '../../ui'
import { pages } from '../common'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'
import type { AdminAccount } from './common'

export interface Report {
  id: string
  action_taken: boolean
  category: string
  comment: string
  forwarded: boolean
  created_at: string
  account: AdminAccount
  target_account: AdminAccount
  assigned_account: AdminAccount | null
  action_taken_by_account: AdminAccount | null
  statuses: { id: string; content: string; url: string; created_at: string }[]
  rules: { id: string; text: string }[]
}

/** Reports, open or resolved, paged by Link (GET /api/v1/admin/reports). */
export const reports: Page = {
  title: 'Reports',
  area: 'admin',
  scopes: ['admin:read:reports', 'admin:write:reports'],
  permission: PERMISSIONS.manage_reports,
  menu: 'Reports',
  Component({ api }) {
    const [resolved, setResolved] = useState('false')
    return (
      <>
        <Select
          label="Show"
          value={resolved}
          onChange={setResolved}
          options={[
            ['false', 'Open reports'],
            ['true', 'Resolved reports'],
          ]}
        />
        <PagedList<Report>
          {...pages<Report>(api, '/api/v1/admin/reports', { resolved })}
          version={resolved}
          label={resolved === 'true' ? 'Resolved reports' : 'Open reports'}
          empty="No reports here."
          item={(r) => (
            <li class="item" key={r.id}>
              <a href={`/admin/reports/${r.id}`}>
                Report #{r.id} on @{r.target_account.account.acct}
              </a>{' '}
              <span class="badge">{r.category}</span>
              <p class="muted">
                By @{r.account.account.acct}, <When at={r.created_at} />
                {r.assigned_account ? ` · assigned to @${r.assigned_account.account.acct}` : ' · unassigned'}
              </p>
              {r.comment ? <p>{r.comment}</p> : null}
            </li>
          )}
        />
      </>
    )
  },
}
