import { useState } from 'preact/hooks'
import type { Api } from '../../api'
import { Action, Form, PagedList, TextField, When } from '../../ui'
import type { Account } from '../common'
import { AccountLine, pages } from '../common'

/** A moderation note as Roost's notes endpoints give it (docs/moderation.md, "Moderation notes"). */
interface Note {
  id: string
  content: string
  created_at: string
  account: Account | null
}

/**
 * The moderation notes on an account or a report (`path`: Roost's /api/v1/admin/accounts/:id/notes or
 * /api/v1/admin/reports/:id/notes, manage_reports): staff write them for each other, the account never sees them.
 * Newest first, paged by Link; each deleted by its author or a higher role (the API decides).
 */
export function Notes(props: { api: Api; path: string; about: string }) {
  const [content, setContent] = useState('')
  const [version, setVersion] = useState(0)
  return (
    <section aria-labelledby="notes-heading">
      <h3 id="notes-heading">Moderation notes</h3>
      <p class="muted">Seen by the staff only, never by {props.about}.</p>
      <Form
        run={() => props.api.send('POST', props.path, { content })}
        onDone={() => {
          setContent('')
          setVersion((v) => v + 1)
        }}
        submit="Add note"
        busy="Adding…"
        done="Note added."
        label="Add a moderation note"
      >
        <TextField label="Note" value={content} onInput={setContent} multiline />
      </Form>
      <PagedList<Note>
        {...pages<Note>(props.api, props.path)}
        version={version}
        label="Notes"
        empty="No notes yet."
        item={(n, reload) => (
          <li class="item" key={n.id}>
            <p class="note">{n.content}</p>
            <p class="muted">
              {n.account ? <AccountLine account={n.account} /> : 'A former member of staff'} ·{' '}
              <When at={n.created_at} />
            </p>
            <Action
              kind="secondary"
              run={() => props.api.send('DELETE', `${props.path}/${n.id}`)}
              onDone={reload}
            >
              Delete this note
            </Action>
          </li>
        )}
      />
    </section>
  )
}
