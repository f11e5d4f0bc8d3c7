import type { Api } from '../../api'
import { ErrorText, Loading, useLoad } from '../../ui'
import type { Page } from '../types'
import { can, PERMISSIONS } from '../types'

interface Measure {
  key: string
  total: string
  previous_total: string
  /** One value per day of the span, oldest first. */
  data: { date: string; value: string }[]
}
interface Dimension {
  key: string
  data: { key: string; human_key: string; value: string; human_value?: string }[]
}
interface Cohort {
  period: string
  data: { date: string; rate: number; value: string }[]
}
interface QueueHealth {
  queues: { name: string; waiting: number; active: number; delayed: number; failed: number }[]
  federation: { backlog: number; unavailable_servers: number }
}

const MEASURES: [string, string][] = [
  ['new_users', 'new users'],
  ['active_users', 'active users'],
  ['interactions', 'interactions'],
  ['opened_reports', 'reports opened'],
  ['resolved_reports', 'reports resolved'],
  ['roost_statuses', 'posts written here'],
]
const DIMENSIONS: [string, string][] = [
  ['languages', 'Languages of the posts'],
  ['sources', 'Where users signed up'],
  ['servers', 'Most active servers'],
  ['software_versions', 'Software'],
  ['space_usage', 'Space used'],
]

const day = (d: Date) => d.toISOString().slice(0, 10)
const DAY_MS = 24 * 3600 * 1000

/** The change from the previous span, in words a screen reader reads well. */
function change(now: number, before: number) {
  if (now === before) return 'same as the 30 days before'
  const diff = now - before
  return `${diff > 0 ? '+' : ''}${diff} against the 30 days before`
}

/**
 * A measure's days as bars (SVG attributes, not styles: the pages' CSP allows no inline style). Hidden from screen
 * readers, which read the same figures in the table of days.
 */
function Bars({ days }: { days: Measure['data'] }) {
  const values = days.map((d) => Number(d.value))
  const top = Math.max(1, ...values)
  return (
    <svg class="bars" viewBox={`0 0 ${values.length * 4} 20`} preserveAspectRatio="none" aria-hidden="true">
      {values.map((v, i) => {
        const height = v ? Math.max(1, (v / top) * 20) : 0
        return <rect key={i} x={i * 4} y={20 - height} width={3} height={height} />
      })}
    </svg>
  )
}

/** The measures day by day, newest first: what the bars show, as a table. */
function Days({ measures }: { measures: Measure[] }) {
  const shown = MEASURES.flatMap(([key, label]) => {
    const m = measures.find((x) => x.key === key)
    return m ? [{ label, m }] : []
  })
  const dates = (shown[0]?.m.data ?? []).map((d) => d.date).reverse()
  return (
    <details>
      <summary>Each day</summary>
      <div class="table-wrap">
        <table>
          <caption>The last 30 days, day by day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {shown.map(({ label }) => (
                <th scope="col" key={label}>
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {dates.map((date) => (
              <tr key={date}>
                <th scope="row">{date.slice(0, 10)}</th>
                {shown.map(({ label, m }) => (
                  <td key={label}>{m.data.find((d) => d.date === date)?.value ?? '0'}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  )
}

/**
 * Mastodon's dashboard numbers (POST /api/v1/admin/measures, dimensions and retention): the last 30 days against
 * the 30 before with their days as bars and as a table, the top lists, and the monthly sign-up cohorts still
 * active.
 */
function Metrics({ api }: { api: Api }) {
  const data = useLoad(async () => {
    const now = new Date()
    const range = { start_at: day(new Date(now.getTime() - 29 * DAY_MS)), end_at: day(now) }
    const [measures, dimensions, retention] = await Promise.all([
      api.send<Measure[]>('POST', '/api/v1/admin/measures', { keys: MEASURES.map(([k]) => k), ...range }),
      api.send<Dimension[]>('POST', '/api/v1/admin/dimensions', {
        keys: DIMENSIONS.map(([k]) => k),
        limit: 5,
        ...range,
      }),
      api.send<Cohort[]>('POST', '/api/v1/admin/retention', {
        start_at: day(new Date(now.getTime() - 180 * DAY_MS)),
        end_at: day(now),
        frequency: 'month',
      }),
    ])
    return { measures, dimensions, retention }
  })
  if (data.loading && !data.data) return <Loading />
  if (!data.data) return <ErrorText error={data.error} />
  const { measures, dimensions, retention } = data.data
  const months = retention[0]?.data.length ?? 0
  return (
    <>
      <h2>The last 30 days</h2>
      <ul class="stats" aria-label="The last 30 days">
        {MEASURES.map(([key, label]) => {
          const m = measures.find((x) => x.key === key)
          return m ? (
            <li key={key}>
              <strong>{m.total}</strong> {label}
              <span class="muted"> ({change(Number(m.total), Number(m.previous_total))})</span>
              <Bars days={m.data} />
            </li>
          ) : null
        })}
      </ul>
      <Days measures={measures} />
      <div class="dimensions">
        {DIMENSIONS.map(([key, label]) => {
          const d = dimensions.find((x) => x.key === key)
          return d ? (
            <section key={key} aria-label={label}>
              <h3>{label}</h3>
              {d.data.length ? (
                <table>
                  <tbody>
                    {d.data.map((row) => (
                      <tr key={row.key}>
                        <th scope="row">{row.human_key}</th>
                        <td>{row.human_value ?? row.value}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : (
                <p class="muted">Nothing yet.</p>
              )}
            </section>
          ) : null
        })}
      </div>
      <h2>Retention</h2>
      {retention.length ? (
        <div class="table-wrap">
          <table>
            <caption>Share of each month's new users active in the months after</caption>
            <thead>
              <tr>
                <th scope="col">Signed up</th>
                {Array.from({ length: months }, (_, i) => (
                  <th scope="col" key={i}>
                    {i === 0 ? 'That month' : `+${i}`}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {retention.map((c) => (
                <tr key={c.period}>
                  <th scope="row">{c.period.slice(0, 7)}</th>
                  {c.data.map((p) => (
                    <td key={p.date}>{Math.round(p.rate * 100)}%</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="muted">No sign-ups in the last six months.</p>
      )}
    </>
  )
}

/** The job queues (Roost's GET /api/v1/admin/queues): their backlog and failures, and the federation backlog. */
function Queues({ api }: { api: Api }) {
  const data = useLoad(() => api.get<QueueHealth>('/api/v1/admin/queues'))
  if (data.loading && !data.data) return <Loading />
  if (!data.data) return <ErrorText error={data.error} />
  const { queues, federation } = data.data
  return (
    <>
      <h2>Queues</h2>
      <p>
        {federation.backlog} deliveries to other servers waiting; {federation.unavailable_servers} servers
        treated as unavailable. Details and retries: <a href="/admin/queues">Bull Board</a>.
      </p>
      <div class="table-wrap">
        <table>
          <caption>Jobs by queue</caption>
          <thead>
            <tr>
              <th scope="col">Queue</th>
              <th scope="col">Waiting</th>
              <th scope="col">Running</th>
              <th scope="col">Delayed</th>
              <th scope="col">Failed</th>
            </tr>
          </thead>
          <tbody>
            {queues.map((q) => (
              <tr key={q.name}>
                <th scope="row">{q.name}</th>
                <td>{q.waiting}</td>
                <td>{q.active}</td>
                <td>{q.delayed}</td>
                <td>{q.failed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  )
}

interface InstanceV1 {
  stats: { user_count: number; status_count: number; domain_count: number }
}
interface InstanceV2 {
  title: string
  usage: { users: { active_month: number } }
  registrations: { enabled: boolean; approval_required: boolean }
}

/**
 * The dashboard: the instance's numbers, open reports and pending sign-ups (counted from their first pages), then
 * Mastodon's measures, dimensions and retention (view_dashboard) and the queues' health (view_devops).
 */
export const dashboard: Page = {
  title: 'Moderation',
  area: 'admin',
  scopes: ['admin:read:reports', 'admin:read:accounts', 'admin:read'],
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
        {can(me, PERMISSIONS.view_dashboard) ? <Metrics api={api} /> : null}
        {can(me, PERMISSIONS.view_devops) ? <Queues api={api} /> : null}
      </>
    )
  },
}
