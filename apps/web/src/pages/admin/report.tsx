import { useState } from 'preact/hooks'
import type { Api } from '../../api'
import { Action, Check, ErrorText, Form, Loading, Select, useLoad, When } from '../../ui'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'
import { AccountActionForm } from './account-action'
import { AdminAccountLine } from './common'
import { Notes } from './notes'
import type { Report } from './reports'

/** Changing a report's category and the rules it cites (Mastodon's PUT /api/v1/admin/reports/:id). */
function CategoryForm(props: { api: Api; report: Report; onDone: () => void }) {
  const rules = useLoad(() => props.api.get<{ id: string; text: string }[]>('/api/v1/instance/rules'))
  const [category, setCategory] = useState(props.report.category)
  const [ruleIds, setRuleIds] = useState(props.report.rules.map((r) => r.id))
  return (
    <Form
      run={() =>
        props.api.send('PUT', `/api/v1/admin/reports/${props.report.id}`, {
          category,
          rule_ids: category === 'violation' ? ruleIds : [],
        })
      }
      onDone={props.onDone}
      submit="Save category"
      done="Category saved."
      label="Category of the report"
    >
      <Select
        label="Category"
        value={category}
        onChange={setCategory}
        options={[
          ['spam', 'Spam'],
          ['legal', 'Illegal content'],
          ['violation', 'Breaks server rules'],
          ['other', 'Other'],
        ]}
      />
      {category === 'violation' ? (
        <fieldset>
          <legend>Rules broken</legend>
          <ErrorText error={rules.error} />
          {(rules.data ?? []).map((rule) => (
            <Check
              key={rule.id}
              label={rule.text}
              checked={ruleIds.includes(rule.id)}
              onChange={(on) =>
                setRuleIds((ids) => (on ? [...ids, rule.id] : ids.filter((id) => id !== rule.id)))
              }
            />
          ))}
        </fieldset>
      ) : null}
    </Form>
  )
}

/** One report: what was reported, assigning, resolving or reopening it, and acting on the reported account. */
export const report: Page = {
  title: 'Report',
  area: 'admin',
  scopes: ['admin:read:reports', 'admin:write:reports', 'admin:write:accounts'],
  permission: PERMISSIONS.manage_reports,
  Component({ api, params, me }) {
    const loaded = useLoad(() => api.get<Report>(`/api/v1/admin/reports/${params.id}`), [params.id])
    if (loaded.loading && !loaded.data) return <Loading />
    if (!loaded.data) return <ErrorText error={loaded.error} />
    const r = loaded.data
    const path = `/api/v1/admin/reports/${r.id}`
    const mine = r.assigned_account?.id === me?.id
    return (
      <>
        <p>
          <a href="/admin/reports">All reports</a>
        </p>
        <h2>
          Report #{r.id} <span class="badge">{r.action_taken ? 'resolved' : 'open'}</span>
        </h2>
        <dl class="facts">
          <dt>Reported account</dt>
          <dd>
            <AdminAccountLine a={r.target_account} />
          </dd>
          <dt>Reported by</dt>
          <dd>
            <AdminAccountLine a={r.account} />
          </dd>
          <dt>When</dt>
          <dd>
            <When at={r.created_at} />
          </dd>
          <dt>Category</dt>
          <dd>{r.category}</dd>
          <dt>Comment</dt>
          <dd>{r.comment || '—'}</dd>
          <dt>Assigned to</dt>
          <dd>{r.assigned_account ? `@${r.assigned_account.account.acct}` : 'no one'}</dd>
          {r.action_taken_by_account ? (
            <>
              <dt>Resolved by</dt>
              <dd>@{r.action_taken_by_account.account.acct}</dd>
            </>
          ) : null}
        </dl>
        {r.rules.length ? (
          <>
            <h3>Rules broken</h3>
            <ul>
              {r.rules.map((rule) => (
                <li key={rule.id}>{rule.text}</li>
              ))}
            </ul>
          </>
        ) : null}
        {r.statuses.length ? (
          <>
            <h3>Reported posts</h3>
            <ul class="items">
              {r.statuses.map((s) => (
                <li class="item" key={s.id}>
                  {/* The server's sanitised HTML of the post, shown as text: no markup from a post reaches the page. */}
                  <p>{new DOMParser().parseFromString(s.content, 'text/html').body.textContent}</p>
                  <a href={s.url}>
                    <When at={s.created_at} />
                  </a>
                </li>
              ))}
            </ul>
          </>
        ) : null}
        <div class="buttons">
          {mine ? (
            <Action kind="secondary" run={() => api.send('POST', `${path}/unassign`)} onDone={loaded.reload}>
              Unassign
            </Action>
          ) : (
            <Action
              kind="secondary"
              run={() => api.send('POST', `${path}/assign_to_self`)}
              onDone={loaded.reload}
            >
              Assign to me
            </Action>
          )}
          {r.action_taken ? (
            <Action kind="secondary" run={() => api.send('POST', `${path}/reopen`)} onDone={loaded.reload}>
              Reopen
            </Action>
          ) : (
            <Action kind="secondary" run={() => api.send('POST', `${path}/resolve`)} onDone={loaded.reload}>
              Resolve without action
            </Action>
          )}
        </div>
        <details>
          <summary>Change the category</summary>
          <CategoryForm
            key={`${r.category} ${r.rules.map((x) => x.id).join()}`}
            api={api}
            report={r}
            onDone={loaded.reload}
          />
        </details>
        {r.action_taken ? null : (
          <>
            <h3>Act on @{r.target_account.account.acct}</h3>
            <AccountActionForm
              api={api}
              accountId={r.target_account.id}
              acct={r.target_account.account.acct}
              reportId={r.id}
              onDone={loaded.reload}
            />
          </>
        )}
        <Notes api={api} path={`${path}/notes`} about="the accounts in the report" />
      </>
    )
  },
}
