import { render } from 'preact'
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
// That one file of @roost/routes, not the package: the route table and its zod schemas stay out of the bundle.
import { ACCOUNT_PAGES, SETTINGS_MENU, WEB_PAGES } from '../../../packages/routes/src/web'
import { createApi } from './api'
import type { Area } from './auth'
import { forgetToken, setAppScopes, signIn, signOut, storedToken } from './auth'
import { PAGES } from './pages'
import type { Me, Page } from './pages/types'
import { can, PERMISSIONS } from './pages/types'
import { ErrorText, Loading } from './ui'

/**
 * The web app (docs/architecture.md, "The web app"): the page of the path, signed in for its area, in the area's
 * frame. Links between pages are plain links: each page loads on its own.
 */

/** The page of a path and its parameters, matching WEB_PAGES as the gateway does. */
function findPage(pathname: string): { page: Page; params: Record<string, string> } | undefined {
  const parts = pathname.replace(/\/+$/, '').split('/')
  for (const pattern of WEB_PAGES) {
    const want = pattern.split('/')
    if (want.length !== parts.length) continue
    const params: Record<string, string> = {}
    if (
      want.every((w, i) =>
        w.startsWith(':') ? (params[w.slice(1)] = decodeURIComponent(parts[i]!)) : w === parts[i],
      )
    )
      return { page: PAGES[pattern], params }
  }
  return undefined
}

/** The scopes an area's sign-in asks: those its pages need, and reading one's own account (who is signed in). */
const areaScopes = (area: Area) =>
  [
    ...new Set([
      'read:accounts',
      ...Object.values(PAGES).flatMap((p) => (p.area === area ? (p.scopes ?? []) : [])),
    ]),
  ]
    .sort()
    .join(' ')

setAppScopes(
  [...new Set([areaScopes('settings'), areaScopes('admin')].join(' ').split(' '))].sort().join(' '),
)

function Frame(props: { area: Area | 'public'; me?: Me; title: string; children: ComponentChildren }) {
  const here = location.pathname
  const menu: readonly (readonly [string, string])[] =
    props.area === 'settings'
      ? SETTINGS_MENU
      : Object.entries(PAGES)
          .filter(([, p]) => p.area === props.area && p.menu && can(props.me, p.permission ?? 0))
          .map(([path, p]) => [path, p.menu!])
  const link = (href: string, text: string) => (
    <li key={href}>
      <a href={href} aria-current={here === href ? 'page' : undefined}>
        {text}
      </a>
    </li>
  )
  useEffect(() => {
    document.title = `${props.title} · Roost`
  }, [props.title])
  return (
    <div class="frame">
      <a class="skip" href="#content">
        Skip to the page
      </a>
      <header class="top">
        <span class="brand">Roost</span>
        {props.me ? (
          <span class="who">
            Signed in as <strong>@{props.me.acct}</strong>{' '}
            <button
              type="button"
              class="link"
              onClick={() =>
                void signOut(props.area as Area).then(() => location.assign('/web/callback?signed_out=1'))
              }
            >
              Sign out
            </button>
          </span>
        ) : null}
      </header>
      <div class="columns">
        {props.area !== 'public' ? (
          <nav class="menu" aria-label={props.area === 'admin' ? 'Moderation' : 'Settings'}>
            <ul>
              {menu.map(([path, label]) => link(path, label))}
              {props.area === 'settings' ? (
                <>
                  <li class="menu-heading" aria-hidden="true">
                    Account and security
                  </li>
                  {ACCOUNT_PAGES.map(([path, label]) => link(path, label))}
                  {can(props.me, PERMISSIONS.view_dashboard | PERMISSIONS.manage_reports)
                    ? link('/admin', 'Moderation')
                    : null}
                </>
              ) : (
                <>
                  {can(props.me, PERMISSIONS.view_devops)
                    ? link('/admin/queues', 'Queues (Bull Board)')
                    : null}
                  {link('/settings/profile', 'Your settings')}
                </>
              )}
            </ul>
          </nav>
        ) : null}
        <main id="content" tabIndex={-1}>
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </div>
    </div>
  )
}

function SignedIn(props: { area: Area; page: Page; params: Record<string, string> }) {
  const { area, page } = props
  const scope = areaScopes(area)
  const saved = storedToken(area)
  // A token from a sign-in that asked for fewer scopes than the area's pages now need is not used: sign in again.
  const usable = saved?.asked === scope ? saved : undefined
  const [me, setMe] = useState<Me>()
  const [error, setError] = useState<string>()
  const restart = () => {
    forgetToken(area)
    void signIn(area, scope, location.pathname + location.search)
  }
  const api = createApi(usable?.token, restart)
  useEffect(() => {
    if (!usable)
      return void signIn(area, scope, location.pathname + location.search).catch((e: Error) =>
        setError(e.message),
      )
    api.get<Me>('/api/v1/accounts/verify_credentials').then(setMe, (e: Error) => setError(e.message))
  }, [])
  if (error)
    return (
      <Frame area={area} title={page.title}>
        <ErrorText error={error} />
      </Frame>
    )
  if (!me)
    return (
      <Frame area={area} title={page.title}>
        <Loading what="Signing in…" />
      </Frame>
    )
  if (
    area === 'admin' &&
    !can(me, page.permission ?? PERMISSIONS.view_dashboard | PERMISSIONS.manage_reports)
  )
    return (
      <Frame area={area} me={me} title={page.title}>
        <p role="alert" class="error">
          Your role on this server does not include this page. Moderation is for the server's staff.
        </p>
      </Frame>
    )
  const Component = page.Component
  return (
    <Frame area={area} me={me} title={page.title}>
      <Component api={api} params={props.params} me={me} />
    </Frame>
  )
}

function App() {
  const found = findPage(location.pathname)
  if (!found)
    return (
      <Frame area="public" title="Not found">
        <p>There is no page here.</p>
      </Frame>
    )
  const { page, params } = found
  if (page.area === 'public') {
    const Component = page.Component
    return (
      <Frame area="public" title={page.title}>
        <Component api={createApi(undefined)} params={params} />
      </Frame>
    )
  }
  return <SignedIn area={page.area} page={page} params={params} />
}

const root = document.getElementById('app')!
root.textContent = '' // the page's "Loading…" until the script ran: Preact would keep it beside the app
render(<App />, root)
