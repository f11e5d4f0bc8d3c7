import { useState } from 'preact/hooks'
import type { Api } from '../../api'
import { Action, Check, ErrorText, Form, Loading, TextField, useLoad, When } from '../../ui'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface Webhook {
  id: string
  url: string
  events: string[]
  secret: string
  enabled: boolean
  created_at: string
}

/**
 * The events a webhook can subscribe to, as the server lists them (WEBHOOK_EVENTS of @roost/events, which the
 * bundle does not import: that package brings zod), in Mastodon's names.
 */
const EVENTS: [string, string][] = [
  ['account.approved', 'An account was approved'],
  ['account.created', 'An account was created'],
  ['account.updated', 'An account was updated'],
  ['report.created', 'A report was filed'],
  ['report.updated', 'A report was updated'],
  ['status.created', 'A post was published'],
  ['status.updated', 'A post was edited'],
]

function EventChecks(props: { events: string[]; onChange: (events: string[]) => void }) {
  return (
    <fieldset>
      <legend>Events</legend>
      {EVENTS.map(([event, what]) => (
        <Check
          key={event}
          label={`${what} (${event})`}
          checked={props.events.includes(event)}
          onChange={(on) =>
            props.onChange(on ? [...props.events, event] : props.events.filter((e) => e !== event))
          }
        />
      ))}
    </fieldset>
  )
}

/** The secret the deliveries are signed with, hidden until asked for. */
function Secret({ secret, url }: { secret: string; url: string }) {
  const [shown, setShown] = useState(false)
  return (
    <p>
      Signing secret:{' '}
      {shown ? (
        <code aria-label={`Signing secret of ${url}`}>{secret}</code>
      ) : (
        <span aria-hidden="true">••••••••</span>
      )}{' '}
      <button type="button" class="link" aria-expanded={shown} onClick={() => setShown((s) => !s)}>
        {shown ? 'Hide the secret' : 'Show the secret'}
      </button>
    </p>
  )
}

function Hook({ hook, api, reload }: { hook: Webhook; api: Api; reload: () => void }) {
  const [events, setEvents] = useState(hook.events)
  const [url, setUrl] = useState(hook.url)
  const path = `/api/v1/admin/webhooks/${hook.id}`
  return (
    <li class="item">
      <p>
        <strong>{hook.url}</strong> <span class="badge">{hook.enabled ? 'enabled' : 'disabled'}</span>
      </p>
      <p class="muted">
        {hook.events.join(' · ')} · created <When at={hook.created_at} />
      </p>
      <Secret secret={hook.secret} url={hook.url} />
      <div class="buttons">
        {hook.enabled ? (
          <Action kind="secondary" run={() => api.send('POST', `${path}/disable`)} onDone={reload}>
            Disable {hook.url}
          </Action>
        ) : (
          <Action run={() => api.send('POST', `${path}/enable`)} onDone={reload}>
            Enable {hook.url}
          </Action>
        )}
        <Action kind="secondary" run={() => api.send('POST', `${path}/rotate_secret`)} onDone={reload}>
          Rotate the secret of {hook.url}
        </Action>
        <Action kind="danger" run={() => api.send('DELETE', path)} onDone={reload}>
          Delete {hook.url}
        </Action>
      </div>
      <details>
        <summary>Change {hook.url}</summary>
        <Form
          run={() => api.send('PUT', path, { url, events })}
          onDone={reload}
          submit="Save webhook"
          done="Webhook saved."
          label={`Change ${hook.url}`}
        >
          <TextField label="Endpoint URL" value={url} onInput={setUrl} required />
          <EventChecks events={events} onChange={setEvents} />
        </Form>
      </details>
    </li>
  )
}

/**
 * Webhooks (Roost's /api/v1/admin/webhooks, Mastodon's admin webhooks): where the server POSTs the events chosen,
 * signed with the webhook's secret (`X-Hub-Signature: sha256=…`, HMAC-SHA256 of the body).
 */
export const webhooks: Page = {
  title: 'Webhooks',
  area: 'admin',
  scopes: ['admin:read', 'admin:write'],
  permission: PERMISSIONS.manage_webhooks,
  menu: 'Webhooks',
  Component({ api }) {
    const list = useLoad(() => api.get<Webhook[]>('/api/v1/admin/webhooks'))
    const [url, setUrl] = useState('')
    const [events, setEvents] = useState<string[]>(['report.created'])
    return (
      <>
        <details class="panel">
          <summary>Add a webhook</summary>
          <Form
            run={() => api.send('POST', '/api/v1/admin/webhooks', { url, events, enabled: true })}
            onDone={() => {
              setUrl('')
              list.reload()
            }}
            submit="Add webhook"
            done="Webhook added: its secret is shown in the list."
            label="Add a webhook"
          >
            <TextField label="Endpoint URL" value={url} onInput={setUrl} required />
            <EventChecks events={events} onChange={setEvents} />
          </Form>
        </details>
        {list.loading && !list.data ? <Loading /> : null}
        <ErrorText error={list.error} />
        {list.data && !list.data.length ? <p class="muted">No webhook yet.</p> : null}
        <ul class="items" aria-label="Webhooks">
          {(list.data ?? []).map((h) => (
            <Hook
              key={`${h.id} ${h.enabled} ${h.secret} ${h.url} ${h.events.join()}`}
              hook={h}
              api={api}
              reload={list.reload}
            />
          ))}
        </ul>
      </>
    )
  },
}
