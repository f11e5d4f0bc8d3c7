import { useState } from 'preact/hooks'
import { Check, ErrorText, Form, Loading, Select, useLoad } from '../ui'
import type { Page } from './types'

interface Preferences {
  'posting:default:visibility': string
  'posting:default:sensitive': boolean
  'posting:default:language': string | null
  'reading:expand:media': string
  'reading:expand:spoilers': boolean
  'posting:default:quote_policy': string
}

const LANGUAGES: [string, string][] = [
  ['', 'No default'],
  ['en', 'English'],
  ['de', 'Deutsch'],
  ['es', 'Español'],
  ['fr', 'Français'],
  ['it', 'Italiano'],
  ['ja', '日本語'],
  ['nl', 'Nederlands'],
  ['pt', 'Português'],
]

/**
 * Posting defaults (GET /api/v1/preferences; saved through update_credentials' `source`, as Mastodon's API allows).
 * The reading preferences are shown but only Mastodon's web settings change them.
 */
export const preferences: Page = {
  title: 'Preferences',
  area: 'settings',
  scopes: ['read:accounts', 'write:accounts'],
  Component({ api }) {
    const loaded = useLoad(() => api.get<Preferences>('/api/v1/preferences'))
    if (loaded.loading && !loaded.data) return <Loading />
    if (!loaded.data) return <ErrorText error={loaded.error} />
    return (
      <PreferencesForm
        p={loaded.data}
        save={(source) => api.send('PATCH', '/api/v1/accounts/update_credentials', { source })}
      />
    )
  },
}

function PreferencesForm({
  p,
  save: send,
}: {
  p: Preferences
  save: (source: Record<string, unknown>) => Promise<unknown>
}) {
  const [privacy, setPrivacy] = useState(p['posting:default:visibility'])
  const [sensitive, setSensitive] = useState(p['posting:default:sensitive'])
  const [language, setLanguage] = useState(p['posting:default:language'] ?? '')
  const [quotePolicy, setQuotePolicy] = useState(p['posting:default:quote_policy'] ?? 'public')
  const save = () => send({ privacy, sensitive, language, quote_policy: quotePolicy })
  return (
    <Form run={save} submit="Save preferences" done="Preferences saved." label="Posting defaults">
      <Select
        label="Default visibility of new posts"
        value={privacy}
        onChange={setPrivacy}
        options={[
          ['public', 'Public'],
          ['unlisted', 'Quiet public (unlisted)'],
          ['private', 'Followers only'],
        ]}
      />
      <Select
        label="Default language of new posts"
        value={language}
        onChange={setLanguage}
        options={LANGUAGES}
      />
      <Check label="Mark my media as sensitive by default" checked={sensitive} onChange={setSensitive} />
      <Select
        label="Who may quote your new posts"
        value={quotePolicy}
        onChange={setQuotePolicy}
        options={[
          ['public', 'Anyone'],
          ['followers', 'Your followers only'],
          ['nobody', 'Only you'],
        ]}
      />
      <p class="hint">
        Reading: media {p['reading:expand:media']}, content warnings{' '}
        {p['reading:expand:spoilers'] ? 'expanded' : 'collapsed'}.
      </p>
    </Form>
  )
}
