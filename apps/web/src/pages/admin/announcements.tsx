import { useState } from 'preact/hooks'
import { Action, Check, Form, PagedList, TextField, When } from '../../ui'
import { pages } from '../common'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface Announcement {
  id: string
  text: string
  published: boolean
  published_at: string | null
  starts_at: string | null
  ends_at: string | null
  all_day: boolean
  created_at: string
}

/** A `datetime-local` value as the ISO 8601 time the API takes (blank stays blank: no time). */
const iso = (local: string) => (local ? new Date(local).toISOString() : '')

/**
 * Announcements (Roost's /api/v1/admin/announcements, Mastodon's): drafts and published ones, newest first, paged;
 * writing one with its time span, publishing, withdrawing, deleting. Users read them at /api/v1/announcements.
 */
export const announcements: Page = {
  title: 'Announcements',
  area: 'admin',
  scopes: ['admin:read', 'admin:write'],
  permission: PERMISSIONS.manage_announcements,
  menu: 'Announcements',
  Component({ api }) {
    const [text, setText] = useState('')
    const [startsAt, setStartsAt] = useState('')
    const [endsAt, setEndsAt] = useState('')
    const [allDay, setAllDay] = useState(false)
    const [publish, setPublish] = useState(true)
    const [version, setVersion] = useState(0)
    return (
      <>
        <details class="panel">
          <summary>Write an announcement</summary>
          <Form
            run={() =>
              api.send('POST', '/api/v1/admin/announcements', {
                text,
                starts_at: iso(startsAt),
                ends_at: iso(endsAt),
                all_day: allDay,
                published: publish,
              })
            }
            onDone={() => {
              setText('')
              setVersion((v) => v + 1)
            }}
            submit="Save announcement"
            done="Announcement saved."
            label="Write an announcement"
          >
            <TextField label="Text" value={text} onInput={setText} multiline />
            <TextField label="Starts at" type="datetime-local" value={startsAt} onInput={setStartsAt} />
            <TextField label="Ends at" type="datetime-local" value={endsAt} onInput={setEndsAt} />
            <Check label="All day" checked={allDay} onChange={setAllDay} />
            <Check label="Publish now" checked={publish} onChange={setPublish} />
          </Form>
        </details>
        <PagedList<Announcement>
          {...pages<Announcement>(api, '/api/v1/admin/announcements')}
          version={version}
          label="Announcements"
          empty="No announcement yet."
          item={(a, reload) => {
            const path = `/api/v1/admin/announcements/${a.id}`
            const short = a.text.length > 40 ? `${a.text.slice(0, 40)}…` : a.text
            return (
              <li class="item" key={a.id}>
                <p>{a.text}</p>
                <p class="muted">
                  <span class="badge">{a.published ? 'published' : 'draft'}</span> from{' '}
                  <When at={a.starts_at} /> to <When at={a.ends_at} />
                  {a.all_day ? ' (all day)' : ''}
                </p>
                <div class="buttons">
                  {a.published ? (
                    <Action
                      kind="secondary"
                      run={() => api.send('POST', `${path}/unpublish`)}
                      onDone={reload}
                      label={`Withdraw “${short}”`}
                    >
                      Withdraw
                    </Action>
                  ) : (
                    <Action
                      run={() => api.send('POST', `${path}/publish`)}
                      onDone={reload}
                      label={`Publish “${short}”`}
                    >
                      Publish
                    </Action>
                  )}
                  <Action
                    kind="danger"
                    run={() => api.send('DELETE', path)}
                    onDone={reload}
                    label={`Delete “${short}”`}
                  >
                    Delete
                  </Action>
                </div>
              </li>
            )
          }}
        />
      </>
    )
  },
}
