import { ErrorText, Loading, useLoad } from '../../ui'
import type { Page } from '../types'
import { can, PERMISSIONS } from '../types'

interface InstanceV1 {
  stats: { user_count: number; status_count: number; domain_count: number }
}
interface InstanceV2 {
  title: string
  usage: { users: { active_month: number } }
  registrations: { enabled: boolean; approval_required: boolean }
}

/**
 * The dashboard: what the API tells now (the instance's numbers, open reports and pending sign-ups, counted from
 * their first pages). Mastodon's measures, dimensions and retention come with their endpoints.
 */
export const dashboard: Page = {
  title: 'Moderation',
  area: 'admin',
  scopes: ['admin:read:reports', 'admin:read:accounts'],
  permission: PERMISSIONS.view_dashboard | PERMISSIONS.manage_reports,
  menu: 'Dashboard',
  Component({ api, me }) {
    const data = useLoad(async () => {
      const [v1, v2] = await Promise.all([
        api.get<InstanceV1>('/api/v1/instance'),
        api.get<InstanceV2>('/api/v2/instance'),
      ])
      const reports = can(me, PERMISSIONS.manage_reports)
        ? (await api.page<unknown>('/api/v1/admin/reports', { resolved: 'false', limit: '100' })).items.length
        : undefined
      const pending = can(me, PERMISSIONS.manage_users)
        ? (
            await api
              .page<unknown>('/api/v2/admin/accounts', { status: 'pending', origin: 'local', limit: '100' })
              .catch(() => ({ items: [] }))
          ).items.length
        : undefined
      return { v1, v2, reports, pending }
    })
    if (data.loading && !data.data) return <Loading />
    if (!data.data) return <ErrorText error={data.error} />
    const { v1, v2, reports, pending } = data.data
    const more = (n: number) => (n >= 100 ? '100 or more' : String(n))
    return (
      <>
        <ul class="stats">
          <li>
            <strong>{v1.stats.user_count}</strong> users
          </li>
          <li>
            <strong>{v2.usage.users.active_month}</strong> active this month
          </li>
          <li>
            <strong>{v1.stats.status_count}</strong> posts
          </li>
          <li>
            <strong>{v1.stats.domain_count}</strong> known servers
          </li>
          {reports !== undefined ? (
            <li>
              <a href="/admin/reports">
                <strong>{more(reports)}</strong> open reports
              </a>
            </li>
          ) : null}
          {pending !== undefined ? (
            <li>
              <a href="/admin/accounts?status=pending">
                <strong>{more(pending)}</strong> sign-ups waiting
              </a>
            </li>
          ) : null}
        </ul>
        <p>
          Sign-ups are{' '}
          {v2.registrations.enabled
            ? v2.registrations.approval_required
              ? 'open, with approval'
              : 'open'
            : 'closed'}
          .
        </p>
        {can(me, PERMISSIONS.view_devops | PERMISSIONS.manage_settings) ? (
          <p>
            The job queues, their backlog and failures: <a href="/admin/queues">Bull Board</a>.
          </p>
        ) : null}
      </>
    )
  },
}
