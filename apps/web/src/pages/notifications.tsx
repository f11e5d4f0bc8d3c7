import { useState } from 'preact/hooks'
import { Action, ErrorText, Form, Loading, PagedList, Select, useLoad } from '../ui'
import type { Account } from './common'
import { AccountLine, pages } from './common'
import type { Page } from './types'

type PolicyValue = 'accept' | 'filter' | 'drop'
const FIELDS = [
  ['for_not_following', 'People you don’t follow'],
  ['for_not_followers', 'People not following you (or for less than three days)'],
  ['for_new_accounts', 'New accounts (younger than 30 days)'],
  ['for_private_mentions', 'Unsolicited private mentions'],
  ['for_limited_accounts', 'Accounts limited by the moderators'],
] as const
type Field = (typeof FIELDS)[number][0]
type Policy = Record<Field, PolicyValue> & {
  summary: { pending_requests_count: number; pending_notifications_count: number }
}

interface NotificationRequest {
  id: string
  notifications_count: string
  account: Account
  last_status: { id: string; content: string; spoiler_text: string } | null
}

/** A status's HTML as plain text (the page never renders a remote server's markup). */
const plain = (html: string) => new DOMParser().parseFromString(html, 'text/html').body.textContent ?? ''

/**
 * The notification policy (GET/PATCH /api/v2/notifications/policy) and the filtered notifications' requests
 * (/api/v1/notifications/requests), accepted or dismissed one by one (docs/discovery.md, "Notification policy and
 * requests").
 */
export const notifications: Page = {
  title: 'Notifications',
  area: 'settings',
  scopes: ['read:notifications', 'write:notifications'],
  Component({ api }) {
    const [version, setVersion] = useState(0)
    const loaded = useLoad(() => api.get<Policy>('/api/v2/notifications/policy'), [version])
    return (
      <>
        <h2>Notification policy</h2>
        {loaded.loading && !loaded.data ? <Loading /> : null}
        {loaded.data ? (
          <PolicyForm
            policy={loaded.data}
            save={(changes) => api.send('PATCH', '/api/v2/notifications/policy', changes)}
          />
        ) : (
          <ErrorText error={loaded.error} />
        )}
        <h2>Notification requests</h2>
        {loaded.data ? (
          <p class="muted">
            {loaded.data.summary.pending_requests_count} pending, holding{' '}
            {loaded.data.summary.pending_notifications_count} notifications.
          </p>
        ) : null}
        <PagedList<NotificationRequest>
          {...pages<NotificationRequest>(api, '/api/v1/notifications/requests')}
          version={version}
          label="Notification requests"
          empty="No filtered notifications are waiting."
          item={(r) => (
            <li class="item" key={r.id}>
              <div class="row">
                <AccountLine account={r.account} />
                <span class="muted">
                  {r.notifications_count} {r.notifications_count === '1' ? 'mention' : 'mentions'}
                </span>
              </div>
              {r.last_status ? <p>{plain(r.last_status.spoiler_text || r.last_status.content)}</p> : null}
              <div class="row">
                <Action
                  run={() => api.send('POST', `/api/v1/notifications/requests/${r.id}/accept`)}
                  onDone={() => setVersion((v) => v + 1)}
                  busy="Accepting…"
                >
                  Accept @{r.account.acct}
                </Action>
                <Action
                  kind="secondary"
                  run={() => api.send('POST', `/api/v1/notifications/requests/${r.id}/dismiss`)}
                  onDone={() => setVersion((v) => v + 1)}
                  busy="Dismissing…"
                >
                  Dismiss @{r.account.acct}
                </Action>
              </div>
            </li>
          )}
        />
      </>
    )
  },
}

function PolicyForm({
  policy,
  save,
}: {
  policy: Policy
  save: (changes: Record<Field, PolicyValue>) => Promise<unknown>
}) {
  const [values, setValues] = useState(
    Object.fromEntries(FIELDS.map(([field]) => [field, policy[field]])) as Record<Field, PolicyValue>,
  )
  return (
    <Form run={() => save(values)} submit="Save policy" done="Policy saved." label="Notification policy">
      <p class="hint">
        Filtered notifications wait in the requests below; dropped ones are never kept. People you follow are
        never filtered.
      </p>
      {FIELDS.map(([field, label]) => (
        <Select
          key={field}
          label={label}
          value={values[field]}
          onChange={(v) => setValues({ ...values, [field]: v as PolicyValue })}
          options={[
            ['accept', 'Accept'],
            ['filter', 'Filter'],
            ['drop', 'Ignore (drop)'],
          ]}
        />
      ))}
    </Form>
  )
}
