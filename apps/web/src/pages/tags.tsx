import { useState } from 'preact/hooks'
import { Action, ErrorText, Form, Loading, PagedList, TextField, useLoad } from '../ui'
import { pages } from './common'
import type { Page } from './types'

interface Tag {
  id?: string
  name: string
  url: string
  following?: boolean
}
interface FeaturedTag {
  id: string
  name: string
  statuses_count: number | string
}

/** Followed hashtags (paged by Link) and the hashtags featured on one's profile. */
export const tags: Page = {
  title: 'Hashtags',
  area: 'settings',
  scopes: ['read:follows', 'write:follows', 'read:accounts', 'write:accounts'],
  Component({ api }) {
    const [follow, setFollow] = useState('')
    const [feature, setFeature] = useState('')
    const [version, setVersion] = useState(0)
    const featured = useLoad(() => api.get<FeaturedTag[]>('/api/v1/featured_tags'))
    const bare = (t: string) => encodeURIComponent(t.replace(/^#/, '').trim())
    return (
      <>
        <h2>Hashtags you follow</h2>
        <Form
          run={() => api.send('POST', `/api/v1/tags/${bare(follow)}/follow`)}
          onDone={() => {
            setFollow('')
            setVersion((v) => v + 1)
          }}
          submit="Follow"
          label="Follow a hashtag"
        >
          <TextField label="Hashtag to follow" value={follow} onInput={setFollow} required />
        </Form>
        <PagedList<Tag>
          {...pages<Tag>(api, '/api/v1/followed_tags')}
          version={version}
          label="Followed hashtags"
          empty="You follow no hashtags."
          item={(t, reload) => (
            <li class="item row" key={t.name}>
              <span>#{t.name}</span>
              <Action
                kind="secondary"
                run={() => api.send('POST', `/api/v1/tags/${bare(t.name)}/unfollow`)}
                onDone={reload}
              >
                Unfollow #{t.name}
              </Action>
            </li>
          )}
        />
        <h2>Featured on your profile</h2>
        <Form
          run={() => api.send('POST', '/api/v1/featured_tags', { name: feature.replace(/^#/, '') })}
          onDone={() => {
            setFeature('')
            featured.reload()
          }}
          submit="Feature"
          label="Feature a hashtag"
        >
          <TextField label="Hashtag to feature" value={feature} onInput={setFeature} required />
        </Form>
        {featured.loading && !featured.data ? <Loading /> : null}
        <ErrorText error={featured.error} />
        <ul class="items" aria-label="Featured hashtags">
          {featured.data?.map((t) => (
            <li class="item row" key={t.id}>
              <span>
                #{t.name} <span class="muted">({t.statuses_count} posts)</span>
              </span>
              <Action
                kind="secondary"
                run={() => api.send('DELETE', `/api/v1/featured_tags/${t.id}`)}
                onDone={featured.reload}
              >
                Stop featuring #{t.name}
              </Action>
            </li>
          ))}
        </ul>
      </>
    )
  },
}
