import { useState } from 'preact/hooks'
import { Action, Check, Form, PagedList, Select, TextField } from '../../ui'
import { pages } from '../common'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface AdminEmoji {
  id: string
  shortcode: string
  url: string | null
  category: string | null
  domain: string | null
  disabled: boolean
  visible_in_picker: boolean
}

/** Custom emojis (Roost's /api/v1/admin/custom_emojis, docs/emoji.md): upload, hide, disable, copy, delete. */
export const customEmojis: Page = {
  title: 'Custom emojis',
  area: 'admin',
  scopes: ['admin:read', 'admin:write'],
  permission: PERMISSIONS.manage_custom_emojis,
  menu: 'Custom emojis',
  Component({ api }) {
    const [origin, setOrigin] = useState('local')
    const [shortcode, setShortcode] = useState('')
    const [category, setCategory] = useState('')
    const [picker, setPicker] = useState(true)
    const [image, setImage] = useState<File>()
    const [version, setVersion] = useState(0)
    const upload = () => {
      const form = new FormData()
      form.set('shortcode', shortcode)
      form.set('category', category)
      form.set('visible_in_picker', String(picker))
      if (image) form.set('image', image)
      return api.send('POST', '/api/v1/admin/custom_emojis', form)
    }
    const path = (e: AdminEmoji) => `/api/v1/admin/custom_emojis/${e.id}`
    return (
      <>
        <details class="panel">
          <summary>Upload an emoji</summary>
          <Form
            run={upload}
            onDone={() => {
              setShortcode('')
              setVersion((v) => v + 1)
            }}
            submit="Upload"
            busy="Uploading…"
            done="Uploaded."
            label="Upload an emoji"
          >
            <TextField label="Shortcode" value={shortcode} onInput={setShortcode} required />
            <div class="field">
              <label for="emoji-image">Image (PNG, GIF or WebP, under 256 KB)</label>
              <input
                id="emoji-image"
                type="file"
                accept="image/png,image/gif,image/webp"
                required
                onChange={(e) => setImage((e.target as HTMLInputElement).files?.[0])}
              />
            </div>
            <TextField label="Category" value={category} onInput={setCategory} />
            <Check label="Show in the emoji picker" checked={picker} onChange={setPicker} />
          </Form>
        </details>
        <Select
          label="Origin"
          value={origin}
          onChange={setOrigin}
          options={[
            ['local', 'This server'],
            ['remote', 'Other servers'],
          ]}
        />
        <PagedList<AdminEmoji>
          {...pages<AdminEmoji>(api, '/api/v1/admin/custom_emojis', { [origin]: 'true' })}
          version={`${origin} ${version}`}
          label="Custom emojis"
          empty="No custom emojis."
          item={(e, reload) => (
            <li class="item row" key={e.id}>
              <span class="emoji">
                {e.url ? <img src={e.url} alt={`:${e.shortcode}:`} width={32} height={32} /> : null}
                <code>:{e.shortcode}:</code>
                {e.domain ? <span class="muted"> {e.domain}</span> : null}
                {e.category ? <span class="badge">{e.category}</span> : null}
                {e.disabled ? <span class="badge">disabled</span> : null}
                {!e.visible_in_picker ? <span class="badge">hidden from picker</span> : null}
              </span>
              <span class="buttons">
                <Action
                  kind="secondary"
                  run={() => api.send('PATCH', path(e), { disabled: !e.disabled })}
                  onDone={reload}
                >
                  {e.disabled ? 'Enable' : 'Disable'} :{e.shortcode}:
                </Action>
                {e.domain ? (
                  <Action kind="secondary" run={() => api.send('POST', `${path(e)}/copy`)} onDone={reload}>
                    Copy :{e.shortcode}: here
                  </Action>
                ) : null}
                <Action kind="danger" run={() => api.send('DELETE', path(e))} onDone={reload}>
                  Delete :{e.shortcode}:
                </Action>
              </span>
            </li>
          )}
        />
      </>
    )
  },
}
