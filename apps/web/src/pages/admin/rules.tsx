import { useState } from 'preact/hooks'
import { Action, ErrorText, Form, Loading, TextField, useLoad } from '../../ui'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface Rule {
  id: string
  text: string
  hint: string
  priority: number
}

function RuleForm(props: {
  rule?: Rule
  run: (body: Record<string, unknown>) => Promise<unknown>
  onDone: () => void
}) {
  const [text, setText] = useState(props.rule?.text ?? '')
  const [hint, setHint] = useState(props.rule?.hint ?? '')
  const [priority, setPriority] = useState(String(props.rule?.priority ?? 0))
  return (
    <Form
      run={() =>
        props.run({ text, hint, ...(/^-?\d+$/.test(priority.trim()) ? { priority: Number(priority) } : {}) })
      }
      onDone={() => {
        if (!props.rule) setText('')
        if (!props.rule) setHint('')
        props.onDone()
      }}
      submit={props.rule ? 'Save rule' : 'Add rule'}
      done={props.rule ? 'Rule saved.' : 'Rule added.'}
      label={props.rule ? `Edit the rule ${props.rule.text}` : 'Add a rule'}
    >
      <TextField label="Rule" value={text} onInput={setText} required />
      <TextField label="Explanation" value={hint} onInput={setHint} multiline />
      <TextField label="Order" hint="Lower numbers come first." value={priority} onInput={setPriority} />
    </Form>
  )
}

/** The server's rules (Roost's /api/v1/admin/rules): shown at sign-up and cited by reports. */
export const rules: Page = {
  title: 'Server rules',
  area: 'admin',
  scopes: ['admin:read', 'admin:write'],
  permission: PERMISSIONS.manage_rules,
  menu: 'Rules',
  Component({ api }) {
    const list = useLoad(() => api.get<Rule[]>('/api/v1/admin/rules'))
    return (
      <>
        <details class="panel">
          <summary>Add a rule</summary>
          <RuleForm run={(body) => api.send('POST', '/api/v1/admin/rules', body)} onDone={list.reload} />
        </details>
        {list.loading && !list.data ? <Loading /> : null}
        <ErrorText error={list.error} />
        {list.data && !list.data.length ? <p class="muted">No rules yet.</p> : null}
        <ol class="items" aria-label="Rules">
          {(list.data ?? []).map((r) => (
            <li class="item" key={`${r.id} ${r.text} ${r.hint} ${r.priority}`}>
              <p>
                <strong>{r.text}</strong>
              </p>
              {r.hint ? <p class="muted">{r.hint}</p> : null}
              <details>
                <summary>Edit the rule</summary>
                <RuleForm
                  rule={r}
                  run={(body) => api.send('PUT', `/api/v1/admin/rules/${r.id}`, body)}
                  onDone={list.reload}
                />
              </details>
              <Action
                kind="danger"
                run={() => api.send('DELETE', `/api/v1/admin/rules/${r.id}`)}
                onDone={list.reload}
              >
                Delete the rule {r.text}
              </Action>
            </li>
          ))}
        </ol>
      </>
    )
  },
}
