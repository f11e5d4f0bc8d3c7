import { useState } from 'preact/hooks'
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

function ImagePicker(props: {
  label: string
  current: string
  onPick: (f: File | undefined) => void
  id: string
}) {
  const [preview, setPreview] = useState<string>()
  return (
    <div class="field image-field">
      <label for={props.id}>{props.label}</label>
      <img
        class={props.id === 'avatar' ? 'avatar-preview' : 'header-preview'}
        src={preview ?? props.current}
        alt={`Your ${props.label.toLowerCase()}`}
      />
      <input
        id={props.id}
        type="file"
        accept="image/png,image/jpeg,image/gif,image/webp"
        onChange={(e) => {
          const file = (e.target as HTMLInputElement).files?.[0]
          setPreview(file ? URL.createObjectURL(file) : undefined)
          props.onPick(file)
        }}
      />
    </div>
  )
}

/** The profile (Mastodon's PATCH /api/v1/accounts/update_credentials, as a multipart form for the images). */
export const profile: Page = {
  title: 'Profile',
  area: 'settings',
  scopes: ['read:accounts', 'write:accounts'],
  menu: 'Profile',
  Component({ api }) {
    const loaded = useLoad(() => api.get<Credential>('/api/v1/accounts/verify_credentials'))
    if (loaded.loading && !loaded.data) return <Loading />
    if (!loaded.data) return <ErrorText error={loaded.error} />
    return (
      <ProfileForm
        me={loaded.data}
        save={(form) => api.send<Credential>('PATCH', '/api/v1/accounts/update_credentials', form)}
      />
    )
  },
}

function ProfileForm(props: { me: Credential; save: (form: FormData) => Promise<Credential> }) {
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
  const [avatar, setAvatar] = useState<File>()
  const [header, setHeader] = useState<File>()
  const setField = (i: number, part: 'name' | 'value', v: string) =>
    setFields((all) => all.map((f, j) => (j === i ? { ...f, [part]: v } : f)))
  const save = () => {
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
    if (avatar) form.set('avatar', avatar)
    if (header) form.set('header', header)
    return props.save(form)
  }
  return (
    <Form
      run={save}
      submit="Save profile"
      busy="Saving (uploading images)…"
      done="Profile saved."
      label="Profile"
    >
      <TextField label="Display name" value={name} onInput={setName} maxLength={30} />
      <TextField label="Bio" value={note} onInput={setNote} multiline />
      <ImagePicker id="avatar" label="Avatar" current={me.avatar} onPick={setAvatar} />
      <ImagePicker id="header" label="Header" current={me.header} onPick={setHeader} />
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
    </Form>
  )
}
