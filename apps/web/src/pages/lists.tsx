import { useState } from 'preact/hooks'
import type { Api } from '../api'
import { Action, ErrorText, Form, Loading, PagedList, Select, TextField, useLoad } from '../ui'
import type { Account } from './common'
import { AccountLine, pages } from './common'
import type { Page } from './types'

interface List {
  id: string
  title: string
  replies_policy: string
  exclusive?: boolean
}

/** Lists (Mastodon's lists API): make, rename, delete, and see and remove their members (paged by Link). */
export const lists: Page = {
  title: 'Lists',
  area: 'settings',
  scopes: ['read:lists', 'write:lists'],
  menu: 'Lists',
  Component({ api }) {
    const all = useLoad(() => api.get<List[]>('/api/v1/lists'))
    const [title, setTitle] = useState('')
    const [policy, setPolicy] = useState('list')
    return (
      <>
        <Form
          run={() => api.send('POST', '/api/v1/lists', { title, replies_policy: policy })}
          onDone={() => {
            setTitle('')
            all.reload()
          }}
          submit="Make list"
          label="New list"
        >
          <TextField label="Title of the new list" value={title} onInput={setTitle} required />
          <Select
            label="Show replies"
            value={policy}
            onChange={setPolicy}
            options={[
              ['list', 'To members of the list'],
              ['followed', 'To anyone you follow'],
              ['none', 'To no one'],
            ]}
          />
        </Form>
        {all.loading && !all.data ? <Loading /> : null}
        <ErrorText error={all.error} />
        {all.data && !all.data.length ? <p class="muted">No lists yet.</p> : null}
        <ul class="items">
          {all.data?.map((l) => (
            <ListItem key={l.id} api={api} list={l} reload={all.reload} />
          ))}
        </ul>
      </>
    )
  },
}

function ListItem({ api, list, reload }: { api: Api; list: List; reload: () => void }) {
  const [open, setOpen] = useState(false)
  return (
    <li class="item">
      <div class="row">
        <h3>{list.title}</h3>
        <button type="button" class="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          Members of {list.title}
        </button>
        <Action kind="danger" run={() => api.send('DELETE', `/api/v1/lists/${list.id}`)} onDone={reload}>
          Delete {list.title}
        </Action>
      </div>
      {open ? (
        <PagedList<Account>
          {...pages<Account>(api, `/api/v1/lists/${list.id}/accounts`)}
          label={`Members of ${list.title}`}
          empty="No one is on this list yet: add people from their profile in your app."
          item={(a, again) => (
            <li class="item row" key={a.id}>
              <AccountLine account={a} />
              <Action
                kind="secondary"
                run={() => api.send('DELETE', `/api/v1/lists/${list.id}/accounts`, { account_ids: [a.id] })}
                onDone={again}
              >
                Remove @{a.acct}
              </Action>
            </li>
          )}
        />
      ) : null}
    </li>
  )
}
