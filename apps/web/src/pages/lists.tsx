import { useState } from 'preact/hooks'
import type { Api } from '../api'
import { Action, ErrorText, Form, Loading, PagedList, Select, TextField, useLoad } from '../ui'
import type { Account } from './common'
import { AccountLine, lookUp, pages } from './common'
import type { Page } from './types'

interface List {
  id: string
  title: string
  replies_policy: string
  exclusive?: boolean
}

/**
 * Lists (Mastodon's lists API): make, rename, delete, and see, add and remove their members (paged by Link; the
 * lists themselves are one unpaged answer, as Mastodon's).
 */
export const lists: Page = {
  title: 'Lists',
  area: 'settings',
  scopes: ['read:lists', 'write:lists', 'read:accounts'],
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
  const [title, setTitle] = useState(list.title)
  const [handle, setHandle] = useState('')
  const [version, setVersion] = useState(0)
  return (
    <li class="item">
      <div class="row">
        <h3>{list.title}</h3>
        <button type="button" class="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          Edit {list.title}
        </button>
        <Action kind="danger" run={() => api.send('DELETE', `/api/v1/lists/${list.id}`)} onDone={reload}>
          Delete {list.title}
        </Action>
      </div>
      {open ? (
        <>
          <div class="inline-forms">
            <Form
              run={() => api.send('PUT', `/api/v1/lists/${list.id}`, { title })}
              onDone={reload}
              submit="Rename"
              label={`Rename ${list.title}`}
            >
              <TextField label="New title" value={title} onInput={setTitle} required />
            </Form>
            <Form
              run={async () =>
                api.send('POST', `/api/v1/lists/${list.id}/accounts`, {
                  account_ids: [(await lookUp(api, handle)).id],
                })
              }
              onDone={() => {
                setHandle('')
                setVersion((v) => v + 1)
              }}
              submit="Add to the list"
              label={`Add someone to ${list.title}`}
            >
              <TextField
                label="Handle (user or user@server)"
                hint="Only people you follow can be on your lists."
                value={handle}
                onInput={setHandle}
                required
              />
            </Form>
          </div>
          <PagedList<Account>
            {...pages<Account>(api, `/api/v1/lists/${list.id}/accounts`)}
            version={version}
            label={`Members of ${list.title}`}
            empty="No one is on this list yet."
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
        </>
      ) : null}
    </li>
  )
}
