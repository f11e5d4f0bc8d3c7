import { useState } from 'preact/hooks'
import type { Api } from '../api'
import { Action, Check, ErrorText, Form, Loading, Select, TextField, useLoad, When } from '../ui'
import type { Page } from './types'

interface Filter {
  id: string
  title: string
  context: string[]
  filter_action: 'warn' | 'hide' | 'blur'
  expires_at: string | null
  keywords: { id: string; keyword: string; whole_word: boolean }[]
  statuses: { id: string; status_id: string }[]
}

const CONTEXTS: [string, string][] = [
  ['home', 'Home and lists'],
  ['notifications', 'Notifications'],
  ['public', 'Public timelines'],
  ['thread', 'Conversations'],
  ['account', 'Profiles'],
]

/** Filters (Mastodon's v2 filters API: a filter, its keywords and its posts). */
export const filters: Page = {
  title: 'Filters',
  area: 'settings',
  scopes: ['read:filters', 'write:filters'],
  Component({ api }) {
    const list = useLoad(() => api.get<Filter[]>('/api/v2/filters'))
    return (
      <>
        <NewFilter api={api} onDone={list.reload} />
        <h2>Your filters</h2>
        {list.loading && !list.data ? <Loading /> : null}
        <ErrorText error={list.error} />
        {list.data && !list.data.length ? <p class="muted">No filters yet.</p> : null}
        <ul class="items">
          {list.data?.map((f) => (
            <FilterItem key={f.id} api={api} filter={f} reload={list.reload} />
          ))}
        </ul>
      </>
    )
  },
}

function NewFilter({ api, onDone }: { api: Api; onDone: () => void }) {
  const [title, setTitle] = useState('')
  const [keywords, setKeywords] = useState('')
  const [wholeWord, setWholeWord] = useState(true)
  const [action, setAction] = useState('warn')
  const [expires, setExpires] = useState('')
  const [context, setContext] = useState<string[]>(['home', 'public', 'thread'])
  const create = () =>
    api.send('POST', '/api/v2/filters', {
      title,
      context,
      filter_action: action,
      expires_in: expires,
      keywords_attributes: keywords
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean)
        .map((keyword) => ({ keyword, whole_word: wholeWord })),
    })
  return (
    <details class="panel">
      <summary>Add a filter</summary>
      <Form
        run={create}
        onDone={() => {
          setTitle('')
          setKeywords('')
          onDone()
        }}
        submit="Add filter"
        done="Filter added."
        label="New filter"
      >
        <TextField label="Title" value={title} onInput={setTitle} required />
        <TextField
          label="Keywords or phrases"
          hint="Separate them with commas."
          value={keywords}
          onInput={setKeywords}
        />
        <Check label="Whole word only" checked={wholeWord} onChange={setWholeWord} />
        <fieldset>
          <legend>Where to filter</legend>
          {CONTEXTS.map(([value, label]) => (
            <Check
              key={value}
              label={label}
              checked={context.includes(value)}
              onChange={(on) => setContext((c) => (on ? [...c, value] : c.filter((x) => x !== value)))}
            />
          ))}
        </fieldset>
        <Select
          label="What to do with a match"
          value={action}
          onChange={setAction}
          options={[
            ['warn', 'Hide behind a warning'],
            ['blur', 'Hide the media behind a warning'],
            ['hide', 'Hide completely'],
          ]}
        />
        <Select
          label="Expires"
          value={expires}
          onChange={setExpires}
          options={[
            ['', 'Never'],
            ['3600', 'In an hour'],
            ['86400', 'In a day'],
            ['604800', 'In a week'],
          ]}
        />
      </Form>
    </details>
  )
}

function FilterItem({ api, filter, reload }: { api: Api; filter: Filter; reload: () => void }) {
  const [keyword, setKeyword] = useState('')
  const [statusId, setStatusId] = useState('')
  return (
    <li class="item filter">
      <h3>{filter.title}</h3>
      <p class="muted">
        {filter.context.map((c) => CONTEXTS.find(([v]) => v === c)?.[1] ?? c).join(', ')} ·{' '}
        {filter.filter_action === 'hide' ? 'hidden' : 'behind a warning'} · expires{' '}
        <When at={filter.expires_at} />
      </p>
      <ul class="chips" aria-label={`Keywords of ${filter.title}`}>
        {filter.keywords.map((k) => (
          <li key={k.id}>
            {k.keyword}
            <Action
              kind="secondary"
              label={`Remove keyword ${k.keyword}`}
              run={() => api.send('DELETE', `/api/v2/filters/keywords/${k.id}`)}
              onDone={reload}
            >
              ×
            </Action>
          </li>
        ))}
      </ul>
      {filter.statuses.length ? (
        <ul class="chips" aria-label={`Posts of ${filter.title}`}>
          {filter.statuses.map((s) => (
            <li key={s.id}>
              Post {s.status_id}
              <Action
                kind="secondary"
                label={`Remove post ${s.status_id}`}
                run={() => api.send('DELETE', `/api/v2/filters/statuses/${s.id}`)}
                onDone={reload}
              >
                ×
              </Action>
            </li>
          ))}
        </ul>
      ) : null}
      <div class="inline-forms">
        <Form
          run={() => api.send('POST', `/api/v2/filters/${filter.id}/keywords`, { keyword, whole_word: true })}
          onDone={() => {
            setKeyword('')
            reload()
          }}
          submit="Add keyword"
          label={`Add a keyword to ${filter.title}`}
        >
          <TextField label="Keyword" value={keyword} onInput={setKeyword} required />
        </Form>
        <Form
          run={() => api.send('POST', `/api/v2/filters/${filter.id}/statuses`, { status_id: statusId })}
          onDone={() => {
            setStatusId('')
            reload()
          }}
          submit="Add post"
          label={`Add a post to ${filter.title}`}
        >
          <TextField label="Post id" value={statusId} onInput={setStatusId} required />
        </Form>
      </div>
      <Action
        kind="danger"
        run={() => api.send('DELETE', `/api/v2/filters/${filter.id}`)}
        onDone={reload}
        busy="Deleting…"
      >
        Delete filter {filter.title}
      </Action>
    </li>
  )
}
