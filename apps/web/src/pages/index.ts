import type { WebPage } from '../../../../packages/routes/src/web'
import { account } from './admin/account'
import { actionLogs } from './admin/action-logs'
import { announcements } from './admin/announcements'
import { accounts } from './admin/accounts'
import { canonicalEmailBlocks } from './admin/canonical-email-blocks'
import { customEmojis } from './admin/custom-emojis'
import { dashboard } from './admin/dashboard'
import { domainAllows } from './admin/domain-allows'
import { domainBlocks } from './admin/domain-blocks'
import { emailDomainBlocks } from './admin/email-domain-blocks'
import { instances } from './admin/instances'
import { ipBlocks } from './admin/ip-blocks'
import { relays } from './admin/relays'
import { report } from './admin/report'
import { reports } from './admin/reports'
import { roles } from './admin/roles'
import { rules } from './admin/rules'
import { settings } from './admin/settings'
import { trends } from './admin/trends'
import { webhooks } from './admin/webhooks'
import { aliases } from './aliases'
import { blocks } from './blocks'
import { callback } from './callback'
import { filters } from './filters'
import { lists } from './lists'
import { notifications } from './notifications'
import { preferences } from './preferences'
import { profile } from './profile'
import { signUp } from './sign-up'
import { tags } from './tags'
import type { Page } from './types'

/**
 * Every page of the app by its path (docs/architecture.md, "The web app"). Typed by WEB_PAGES, the paths the
 * gateway serves (packages/routes/src/web.ts): a path without a page, or a page without a path, does not compile.
 * The menus list the pages in this order.
 */
export const PAGES: Record<WebPage, Page> = {
  '/auth/sign_up': signUp,
  '/web/callback': callback,
  '/settings/profile': profile,
  '/settings/preferences': preferences,
  '/settings/filters': filters,
  '/settings/tags': tags,
  '/settings/blocks': blocks,
  '/settings/lists': lists,
  '/settings/notifications': notifications,
  '/settings/aliases': aliases,
  '/admin': dashboard,
  '/admin/reports': reports,
  '/admin/reports/:id': report,
  '/admin/accounts': accounts,
  '/admin/accounts/:id': account,
  '/admin/roles': roles,
  '/admin/action_logs': actionLogs,
  '/admin/trends': trends,
  '/admin/domain_blocks': domainBlocks,
  '/admin/domain_allows': domainAllows,
  '/admin/instances': instances,
  '/admin/relays': relays,
  '/admin/ip_blocks': ipBlocks,
  '/admin/email_domain_blocks': emailDomainBlocks,
  '/admin/canonical_email_blocks': canonicalEmailBlocks,
  '/admin/custom_emojis': customEmojis,
  '/admin/rules': rules,
  '/admin/announcements': announcements,
  '/admin/webhooks': webhooks,
  '/admin/settings': settings,
}
