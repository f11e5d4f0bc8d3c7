import { useState } from 'preact/hooks'
import type { FocalImage } from '../focal-image'
import { croppedFile, FocalImageField } from '../focal-image'
import { Check, ErrorText, Form, Loading, TextField, useLoad } from '../ui'
import type { Page } from './types'

interface Credential {
  display_name: string
  avatar: string
  header: string
  locked: boolean
  bot: boolean
  discoverable: boolean | null
  source: {
    note: string
    fields: { name: string; value: string }[]
    indexable?: boolean
    hide_collections?: boolean | null
  }
  hide_collections?: boolean
}

const MAX_FIELDS = 4

/**
 * The profile (Mastodon's PATCH /api/v1/accounts/update_credentials, as a multipart form for the images, which are
 * cropped around their focal point here and uploaded with their progress shown).
 */
export const profile: Page = {
  title: 'Profile',
  area: 'settings',
  scopes: ['read:accounts', 'write:accounts'],
  Component({ api }) {
    const loaded = useLoad(() => api.get<Credential>('/api/v1/accounts/verify_credentials'))
    if (loaded.loading && !loaded.data) return <Loading />
    if (!loaded.data) return <ErrorText error={loaded.error} />
    return (
      <ProfileForm
        me={loaded.data}
        save={(form, onProgress) =>
          api.upload<Credential>('PATCH', '/api/v1/accounts/update_credentials', form, onProgress)
        }
      />
    )
  },
}

function ProfileForm(props: {
  me: Credential
  save: (form: FormData, onProgress: (sent: number) => void) => Promise<Credential>
}) {
  const { me } = props
  const [name, setName] = useState(me.display_name)
  const [note, setNote] = useState(me.source.note)
  const [fields, setFields] = useState(() =>
    [...me.source.fields, ...Array(MAX_FIELDS).fill({ name: '', value: '' })].slice(0, MAX_FIELDS),
  )
  const [locked, setLocked] = useState(me.locked)
  const [bot, setBot] = useState(me.bot)
  const [discoverable, setDiscoverable] = useState(Boolean(me.discoverable))
  const [indexable, setIndexable] = useState(Boolean(me.source.indexable))
  const [hide, setHide] = useState(Boolean(me.source.hide_collections ?? me.hide_collections))
  const [avatar, setAvatar] = useState<FocalImage>()
  const [header, setHeader] = useState<FocalImage>()
  /** The stored images, shown until new ones are chosen (and after they are saved). */
  const [stored, setStored] = useState({ avatar: me.avatar, header: me.header })
  const [imageError, setImageError] = useState<string>()
  /** How much of the form has gone up, while it goes (undefined otherwise). */
  const [sent, setSent] = useState<number>()
  const setField = (i: number, part: 'name' | 'value', v: string) =>
    setFields((all) => all.map((f, j) => (j === i ? { ...f, [part]: v } : f)))
  const save = async () => {
    const form = new FormData()
    form.set('display_name', name)
    form.set('note', note)
    fields.forEach((f, i) => {
      form.set(`fields_attributes[${i}][name]`, f.name)
      form.set(`fields_attributes[${i}][value]`, f.value)
    })
    form.set('locked', String(locked))
    form.set('bot', String(bot))
    form.set('discoverable', String(discoverable))
    form.set('indexable', String(indexable))
    form.set('hide_collections', String(hide))
    if (avatar) form.set('avatar', await croppedFile(avatar, 'avatar'))
    if (header) form.set('header', await croppedFile(header, 'header'))
    setSent(0)
    try {
      return await props.save(form, setSent)
    } finally {
      setSent(undefined)
    }
  }
  return (
    <Form
      run={save}
      onDone={(saved) => {
        setStored({ avatar: saved.avatar, header: saved.header })
        setAvatar(undefined)
        setHeader(undefined)
      }}
      submit="Save profile"
      busy={avatar || header ? 'Uploading images…' : 'Saving…'}
      done="Profile saved."
      label="Profile"
    >
      <TextField label="Display name" value={name} onInput={setName} maxLength={30} />
      <TextField label="Bio" value={note} onInput={setNote} multiline />
      <FocalImageField
        shape="avatar"
        label="Avatar"
        current={stored.avatar}
        value={avatar}
        onChange={setAvatar}
        onError={setImageError}
      />
      <FocalImageField
        shape="header"
        label="Header"
        current={stored.header}
        value={header}
        onChange={setHeader}
        onError={setImageError}
      />
      <ErrorText error={imageError} />
      <fieldset>
        <legend>Profile fields</legend>
        {fields.map((f, i) => (
          <div class="pair" key={i}>
            <TextField label={`Label ${i + 1}`} value={f.name} onInput={(v) => setField(i, 'name', v)} />
            <TextField label={`Content ${i + 1}`} value={f.value} onInput={(v) => setField(i, 'value', v)} />
          </div>
        ))}
      </fieldset>
      <fieldset>
        <legend>Who sees you</legend>
        <Check label="Approve followers by hand (locked account)" checked={locked} onChange={setLocked} />
        <Check label="This is an automated account (bot)" checked={bot} onChange={setBot} />
        <Check
          label="Suggest my account to others and list it in the directory"
          checked={discoverable}
          onChange={setDiscoverable}
        />
        <Check
          label="Let search engines and full-text search index my public posts"
          checked={indexable}
          onChange={setIndexable}
        />
        <Check label="Hide whom I follow and who follows me" checked={hide} onChange={setHide} />
      </fieldset>
      {sent !== undefined ? (
        <p class="upload">
          <label for="upload-progress">Sent to the server</label>{' '}
          <progress id="upload-progress" value={sent} max={1}>
            {Math.round(sent * 100)}%
          </progress>{' '}
          <span aria-live="polite">{Math.round(sent * 100)}%</span>
        </p>
      ) : null}
    </Form>
  )
}
