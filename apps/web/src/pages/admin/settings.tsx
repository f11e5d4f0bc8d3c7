import { useState } from 'preact/hooks'
import { Check, ErrorText, Form, Loading, Select, TextField, useLoad } from '../../ui'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface Settings {
  site_title: string
  site_short_description: string
  site_extended_description: string
  site_contact_username: string
  site_contact_email: string
  registrations_mode: 'open' | 'approved' | 'none'
  closed_registrations_message: string
  require_invite_text: boolean
  languages: string[]
  limited_federation_mode: boolean
}

function SettingsForm({
  settings,
  save,
}: {
  settings: Settings
  save: (s: Partial<Settings>) => Promise<unknown>
}) {
  const [s, setS] = useState(settings)
  const [languages, setLanguages] = useState(settings.languages.join(', '))
  const set =
    <K extends keyof Settings>(key: K) =>
    (value: Settings[K]) =>
      setS((old) => ({ ...old, [key]: value }))
  return (
    <Form
      run={() =>
        save({
          ...s,
          languages: languages
            .split(/[\s,]+/)
            .map((l) => l.trim())
            .filter(Boolean),
        })
      }
      submit="Save settings"
      done="Settings saved."
      label="Server settings"
    >
      <fieldset>
        <legend>About the server</legend>
        <TextField label="Server name" value={s.site_title} onInput={set('site_title')} required />
        <TextField
          label="Short description"
          value={s.site_short_description}
          onInput={set('site_short_description')}
          multiline
        />
        <TextField
          label="Extended description"
          hint="Shown on the server's about page (GET /api/v1/instance/extended_description)."
          value={s.site_extended_description}
          onInput={set('site_extended_description')}
          multiline
        />
        <TextField
          label="Contact username"
          hint="A local account people can write to."
          value={s.site_contact_username}
          onInput={set('site_contact_username')}
        />
        <TextField
          label="Contact e-mail"
          type="email"
          value={s.site_contact_email}
          onInput={set('site_contact_email')}
        />
        <TextField
          label="Languages"
          hint="ISO 639 codes, comma separated, the main one first."
          value={languages}
          onInput={setLanguages}
        />
      </fieldset>
      <fieldset>
        <legend>Sign-ups</legend>
        <Select
          label="Registrations mode"
          value={s.registrations_mode}
          onChange={(v) => set('registrations_mode')(v as Settings['registrations_mode'])}
          options={[
            ['open', 'Anyone can sign up'],
            ['approved', 'Approval required to sign up'],
            ['none', 'Nobody can sign up'],
          ]}
        />
        <Check
          label="Ask newcomers why they want to join"
          hint="Sign-ups waiting for approval must give a reason."
          checked={s.require_invite_text}
          onChange={set('require_invite_text')}
        />
        <TextField
          label="Message when sign-ups are closed"
          value={s.closed_registrations_message}
          onInput={set('closed_registrations_message')}
          multiline
        />
      </fieldset>
      <fieldset>
        <legend>Federation</legend>
        <Check
          label="Limited federation mode"
          hint="Federate only with the servers you allow."
          checked={s.limited_federation_mode}
          onChange={set('limited_federation_mode')}
        />
      </fieldset>
    </Form>
  )
}

/** Server settings (Roost's /api/v1/admin/settings, Mastodon's site settings): what the instance documents say. */
export const settings: Page = {
  title: 'Server settings',
  area: 'admin',
  scopes: ['admin:read', 'admin:write'],
  permission: PERMISSIONS.manage_settings,
  menu: 'Server settings',
  Component({ api }) {
    const loaded = useLoad(() => api.get<Settings>('/api/v1/admin/settings'))
    if (loaded.loading && !loaded.data) return <Loading />
    if (!loaded.data) return <ErrorText error={loaded.error} />
    return (
      <SettingsForm
        settings={loaded.data}
        save={(s) => api.send('PUT', '/api/v1/admin/settings', s as Record<string, unknown>)}
      />
    )
  },
}
