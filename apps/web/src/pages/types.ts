import type { FunctionComponent } from 'preact'
import type { Api } from '../api'
import type { Area } from '../auth'
import { PERMISSION_FLAGS } from '../../../../packages/auth/src/permissions'
import type { Permission } from '../../../../packages/auth/src/permissions'

/** The signed-in user as verify_credentials gives them (a CredentialAccount), the parts pages read. */
export interface Me {
  id: string
  username: string
  acct: string
  display_name: string
  avatar: string
  role?: { name: string; permissions: string }
}

export interface PageProps {
  api: Api
  /** The path's parameters (`:id`). */
  params: Record<string, string>
  /** Absent on public pages. */
  me?: Me
}

/**
 * One page of the app (docs/architecture.md, "The web app"): a file in this folder exporting one of these,
 * registered in ./index.ts under its path of WEB_PAGES.
 */
export interface Page {
  title: string
  /** `public`: no sign-in; `settings`/`admin`: signed in with the scopes of the area's pages. */
  area: 'public' | Area
  /** The API scopes the page's calls need (Mastodon's names); the area's sign-in asks for those of all its pages. */
  scopes?: string[]
  /** Admin pages: the Mastodon permission bit (PERMISSIONS) a role needs to see the page in the menu. */
  permission?: number
  /**
   * Admin pages: shown in the menu under this label (pages with a parameter are reached from their list instead).
   * The settings menu is SETTINGS_MENU (packages/routes/src/web.ts), shared with the sign-in server's pages.
   */
  menu?: string
  Component: FunctionComponent<PageProps>
}

/**
 * Mastodon's role permission bits (UserRole::FLAGS), as `role.permissions` carries them: the server's own list
 * (that one file of @roost/auth, which imports nothing, so the rest of the package stays out of the bundle).
 */
export const PERMISSIONS = PERMISSION_FLAGS
export type { Permission }

export const can = (me: Me | undefined, permission: number) => {
  const bits = Number(me?.role?.permissions ?? 0)
  return (bits & PERMISSIONS.administrator) !== 0 || (bits & permission) !== 0
}
