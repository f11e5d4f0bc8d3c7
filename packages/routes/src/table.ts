import type { Access, Scope } from '@roost/auth'
import * as P from './parameters'
import type { RouteParams } from './params'
import { WEB_ASSETS_PATH, WEB_PAGES } from './web'
import type { Permission } from './permissions'

/** The service behind a route; `gateway` routes are answered by the gateway itself. */
export type Upstream = 'accounts' | 'push' | 'streaming' | 'gateway'
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/**
 * Per-route rate-limit families, counted on top of the general API ones; their budgets are gateway settings
 * (apps/gateway/src/rate-limit.ts).
 */
export type RouteRateLimit = 'sign_ups' | 'app_registrations' | 'follows' | 'statuses' | 'deletes' | 'media'

export interface Route {
  method: Method
  /** An express path pattern; ids are `:id`. */
  path: string
  upstream: Upstream
  /** How the route treats the bearer token (see `Access` in @roost/auth). */
  access: Access
  /** Accepted scopes, any one of which suffices (each also granted by its parents; see @roost/auth scopes). */
  scopes: readonly Scope[]
  /** `upload`: takes multipart files, so the gateway allows the larger body (GATEWAY_UPLOAD_BODY_LIMIT). */
  body?: 'upload'
  rateLimit?: readonly RouteRateLimit[]
  /** Creates an account: the gateway applies `sign_up_block` IP rules to it. */
  signUp?: boolean
  /**
   * The route's parameters (query and body), a zod object from ./parameters: handlers read them with
   * `readParams(req, schema)` and the OpenAPI document shows them. Absent: the route takes none.
   */
  params?: RouteParams
  /** What the OpenAPI document says of the route beyond Mastodon's API: a Roost addition says so. */
  description?: string
  /**
   * Admin routes: the Mastodon permission bit (./permissions) the caller's role must hold; the accounts service
   * checks it (`requirePermission`) before anything else, answering 403 without it.
   */
  permission?: Permission
}

type Attributes = Pick<Route, 'body' | 'rateLimit' | 'signUp' | 'params' | 'description'>

const route = (
  method: Method,
  path: string,
  upstream: Upstream,
  access: Access,
  scopes: Scope[] = [],
  attributes: Attributes = {},
): Route => ({ method, path, upstream, access, scopes, ...attributes })

/** An admin route of the accounts service: a user token with one of `scopes` whose role holds `permission`. */
const admin = (
  method: Method,
  path: string,
  scopes: Scope[],
  permission: Permission,
  attributes: Attributes = {},
): Route => ({ method, path, upstream: 'accounts', access: 'required', scopes, permission, ...attributes })

const ACCOUNTS = 'accounts'
const RELAYS =
  'A Roost addition: Mastodon manages relays in its web admin only (Admin::RelaysController). ' +
  'Relay entity: id, inbox_url, state (idle, pending, accepted, rejected), enabled, actor_uri, created_at.'
const NOTES =
  'A Roost addition: Mastodon keeps moderation notes (AccountModerationNote, ReportNote) on its web pages only. ' +
  'Note entity: id, content, created_at, account (its author, an Account).'
const PUSH = 'push'
const STREAMING = 'streaming'
const GATEWAY = 'gateway'

/** Where WebSocket upgrades of the streaming API go (any path below it too, as Mastodon accepts any path). */
export const STREAMING_WEBSOCKET_PATH = '/api/v1/streaming'
/** Every other path below the streaming API (an express 5 wildcard): the streaming service answers them. */
export const STREAMING_OTHER_PATHS = '/api/v1/streaming/*path'

/**
 * THE route table: every public endpoint, its upstream service, the scopes it accepts (Mastodon's) and what the
 * gateway must know of it (body limit, rate-limit families, sign-up). The gateway builds its router from it and
 * the services re-check every request against it; a service cannot serve a route missing here (`serviceRoutes`).
 */
export const ROUTES: readonly Route[] = [
  // OAuth server and app registration (apps/accounts/src/oauth)
  route('POST', '/api/v1/apps', ACCOUNTS, 'none', [], {
    rateLimit: ['app_registrations'],
    params: P.createAppParams,
  }),
  route('GET', '/api/v1/apps/verify_credentials', ACCOUNTS, 'required'),
  route('GET', '/oauth/authorize', ACCOUNTS, 'none', [], { params: P.showAuthorizationParams }),
  route('POST', '/oauth/authorize', ACCOUNTS, 'none', [], { params: P.decideAuthorizationParams }),
  route('POST', '/oauth/token', ACCOUNTS, 'none', [], { params: P.tokenParams }),
  route('POST', '/oauth/revoke', ACCOUNTS, 'none', [], { params: P.revokeParams }),
  route('GET', '/oauth/jwks', ACCOUNTS, 'none'),
  // The pages of links sent by mail, and the account calls around them (apps/accounts/src/auth, docs/security.md)
  route('GET', '/auth/confirmation', ACCOUNTS, 'none', [], { params: P.confirmationParams }),
  route('GET', '/auth/confirmation/new', ACCOUNTS, 'none'),
  route('POST', '/auth/confirmation', ACCOUNTS, 'none', [], { params: P.confirmationRequestParams }),
  route('GET', '/auth/password/new', ACCOUNTS, 'none'),
  route('POST', '/auth/password', ACCOUNTS, 'none', [], { params: P.passwordResetRequestParams }),
  route('GET', '/auth/password/edit', ACCOUNTS, 'none', [], { params: P.editPasswordParams }),
  route('POST', '/auth/password/edit', ACCOUNTS, 'none', [], { params: P.resetPasswordParams }),
  // Invites, one's data and leaving (apps/accounts/src/auth, docs/security.md, "Invites" and "Your data"): pages
  // signed in by the OAuth pages' session cookie, and the Roost API of invites (docs/mastodon-compatibility.md).
  route('GET', '/invite/:code', ACCOUNTS, 'none'),
  route('POST', '/invite/:code', ACCOUNTS, 'none', [], {
    rateLimit: ['sign_ups'],
    signUp: true,
    params: P.inviteSignUpParams,
  }),
  route('GET', '/settings/invites', ACCOUNTS, 'none'),
  route('POST', '/settings/invites', ACCOUNTS, 'none', [], { params: P.createInviteParams }),
  route('POST', '/settings/invites/:id/expire', ACCOUNTS, 'none', [], { params: P.settingsFormParams }),
  route('GET', '/settings/export', ACCOUNTS, 'none'),
  route('POST', '/settings/export', ACCOUNTS, 'none', [], { params: P.settingsFormParams }),
  route('GET', '/settings/exports/archives/:id', ACCOUNTS, 'none'),
  route('GET', '/settings/exports/:file', ACCOUNTS, 'none'),
  route('GET', '/settings/imports', ACCOUNTS, 'none'),
  route('POST', '/settings/imports', ACCOUNTS, 'none', [], { body: 'upload', params: P.createImportParams }),
  route('GET', '/settings/delete', ACCOUNTS, 'none'),
  route('POST', '/settings/delete', ACCOUNTS, 'none', [], { params: P.deleteAccountParams }),
  route('GET', '/api/v1/invites', ACCOUNTS, 'required', ['read:accounts']),
  route('POST', '/api/v1/invites', ACCOUNTS, 'required', ['write:accounts'], {
    params: P.createInviteParams,
  }),
  route('DELETE', '/api/v1/invites/:id', ACCOUNTS, 'required', ['write:accounts']),
  route('POST', '/api/v1/emails/confirmations', ACCOUNTS, 'required', ['write:accounts'], {
    params: P.resendConfirmationParams,
  }),
  route('GET', '/api/v1/emails/check_confirmation', ACCOUNTS, 'required', ['read:accounts']),
  // Signing in for the settings pages, and the settings pages (apps/accounts/src/settings, docs/security.md)
  route('GET', '/auth/sign_in', ACCOUNTS, 'none', [], { params: P.returnToParams }),
  route('POST', '/auth/sign_in', ACCOUNTS, 'none', [], { params: P.settingsSignInParams }),
  route('GET', '/settings/two_factor', ACCOUNTS, 'none', [], { params: P.returnToParams }),
  route('POST', '/settings/two_factor/setup', ACCOUNTS, 'none', [], { params: P.twoFactorSetupParams }),
  route('POST', '/settings/two_factor/confirm', ACCOUNTS, 'none', [], { params: P.twoFactorCodeParams }),
  route('POST', '/settings/two_factor/disable', ACCOUNTS, 'none', [], { params: P.twoFactorCodeParams }),
  route('POST', '/settings/two_factor/recovery_codes', ACCOUNTS, 'none', [], {
    params: P.twoFactorCodeParams,
  }),
  route('GET', '/settings/security_keys/new', ACCOUNTS, 'none'),
  route('POST', '/settings/security_keys', ACCOUNTS, 'none', [], { params: P.securityKeyParams }),
  route('POST', '/settings/security_keys/:id/delete', ACCOUNTS, 'none', [], { params: P.csrfOnlyParams }),
  route('GET', '/settings/sessions', ACCOUNTS, 'none'),
  route('POST', '/settings/sessions/revoke', ACCOUNTS, 'none', [], { params: P.revokeApplicationParams }),
  route('GET', '/settings/password', ACCOUNTS, 'none'),
  route('POST', '/settings/password', ACCOUNTS, 'none', [], { params: P.settingsPasswordParams }),
  route('GET', '/settings/email', ACCOUNTS, 'none'),
  route('POST', '/settings/email', ACCOUNTS, 'none', [], { params: P.emailChangeParams }),
  route('POST', '/api/v1/user/password_change', ACCOUNTS, 'required', ['write:accounts'], {
    params: P.passwordChangeParams,
  }),
  route('GET', '/.well-known/oauth-authorization-server', ACCOUNTS, 'none'),
  route('GET', '/.well-known/host-meta', ACCOUNTS, 'none'),

  // Federation: discovery, profile and status pages (apps/accounts/src/federation; docs/federation.md)
  route('GET', '/.well-known/webfinger', ACCOUNTS, 'none', [], { params: P.webfingerParams }),
  route('GET', '/.well-known/nodeinfo', ACCOUNTS, 'none'),
  route('GET', '/nodeinfo/2.0', ACCOUNTS, 'none'),
  route('GET', '/@:username', ACCOUNTS, 'none'),
  route('GET', '/@:username/:id', ACCOUNTS, 'none'),
  // Actors and their collections (apps/accounts/src/api/federation/actors.ts)
  route('GET', '/users/:username', ACCOUNTS, 'none'),
  route('GET', '/users/:username/statuses/:id', ACCOUNTS, 'none'),
  route('GET', '/users/:username/quote_authorizations/:id', ACCOUNTS, 'none'),
  route('GET', '/users/:username/statuses/:id/activity', ACCOUNTS, 'none'),
  route('GET', '/users/:username/statuses/:id/replies', ACCOUNTS, 'none', [], { params: P.repliesParams }),
  route('GET', '/users/:username/outbox', ACCOUNTS, 'none', [], { params: P.collectionParams }),
  route('GET', '/users/:username/followers', ACCOUNTS, 'none', [], { params: P.collectionParams }),
  route('GET', '/users/:username/following', ACCOUNTS, 'none', [], { params: P.collectionParams }),
  route('GET', '/users/:username/collections/featured', ACCOUNTS, 'none'),
  // A local custom emoji's Emoji object (apps/accounts/src/api/federation/emojis.ts)
  route('GET', '/emojis/:id', ACCOUNTS, 'none'),
  route('GET', '/actor', ACCOUNTS, 'none'),
  route('GET', '/actor/outbox', ACCOUNTS, 'none'),
  // Inboxes: signed by the sending server, not by a token (apps/accounts/src/api/federation/inbox.ts)
  route('POST', '/inbox', ACCOUNTS, 'none'),
  route('POST', '/users/:username/inbox', ACCOUNTS, 'none'),

  // Accounts and profiles (apps/accounts/src/api/v1/accounts)
  route('POST', '/api/v1/accounts', ACCOUNTS, 'required', ['write:accounts'], {
    rateLimit: ['sign_ups'],
    signUp: true,
    params: P.createAccountParams,
  }),
  route('GET', '/api/v1/accounts', ACCOUNTS, 'optional', ['read:accounts'], {
    params: P.listAccountsParams,
  }),
  route('GET', '/api/v1/accounts/verify_credentials', ACCOUNTS, 'required', ['read:accounts', 'profile']),
  route('PATCH', '/api/v1/accounts/update_credentials', ACCOUNTS, 'required', ['write:accounts'], {
    body: 'upload',
    params: P.updateCredentialsParams,
  }),
  route('GET', '/api/v1/accounts/lookup', ACCOUNTS, 'optional', ['read:accounts'], {
    params: P.lookupAccountParams,
  }),
  route('GET', '/api/v1/accounts/search', ACCOUNTS, 'required', ['read:accounts'], {
    params: P.searchAccountsParams,
  }),
  route('GET', '/api/v1/accounts/relationships', ACCOUNTS, 'required', ['read:follows'], {
    params: P.relationshipsParams,
  }),
  // Aliases and moving away: Roost additions (docs/federation.md, "Moved accounts").
  route('GET', '/api/v1/accounts/aliases', ACCOUNTS, 'required', ['read:accounts']),
  route('POST', '/api/v1/accounts/aliases', ACCOUNTS, 'required', ['write:accounts'], {
    params: P.accountAliasParams,
  }),
  route('DELETE', '/api/v1/accounts/aliases', ACCOUNTS, 'required', ['write:accounts'], {
    params: P.accountAliasParams,
  }),
  route('POST', '/api/v1/accounts/move', ACCOUNTS, 'required', ['write:accounts'], {
    params: P.accountMoveParams,
  }),
  route('GET', '/api/v1/accounts/:id', ACCOUNTS, 'optional', ['read:accounts']),
  route('GET', '/api/v1/accounts/:id/statuses', ACCOUNTS, 'optional', ['read:statuses'], {
    params: P.accountStatusesParams,
  }),
  route('GET', '/api/v1/accounts/:id/statuses/media', ACCOUNTS, 'optional', ['read:statuses'], {
    params: P.accountStatusesParams,
  }),
  route('GET', '/api/v1/accounts/:id/followers', ACCOUNTS, 'optional', ['read:accounts'], {
    params: P.pageParams,
  }),
  route('GET', '/api/v1/accounts/:id/following', ACCOUNTS, 'optional', ['read:accounts'], {
    params: P.pageParams,
  }),
  route('POST', '/api/v1/accounts/:id/follow', ACCOUNTS, 'required', ['write:follows'], {
    rateLimit: ['follows'],
    params: P.followParams,
  }),
  route('POST', '/api/v1/accounts/:id/unfollow', ACCOUNTS, 'required', ['write:follows']),
  route('POST', '/api/v1/accounts/:id/remove_from_followers', ACCOUNTS, 'required', ['write:follows']),
  route('POST', '/api/v1/accounts/:id/block', ACCOUNTS, 'required', ['write:blocks']),
  route('POST', '/api/v1/accounts/:id/unblock', ACCOUNTS, 'required', ['write:blocks']),
  route('POST', '/api/v1/accounts/:id/mute', ACCOUNTS, 'required', ['write:mutes'], {
    params: P.muteParams,
  }),
  route('POST', '/api/v1/accounts/:id/unmute', ACCOUNTS, 'required', ['write:mutes']),
  route('GET', '/api/v1/follow_requests', ACCOUNTS, 'required', ['read:follows'], {
    params: P.pageParams,
  }),
  route('POST', '/api/v1/follow_requests/:id/authorize', ACCOUNTS, 'required', ['write:follows']),
  route('POST', '/api/v1/follow_requests/:id/reject', ACCOUNTS, 'required', ['write:follows']),
  route('GET', '/api/v1/blocks', ACCOUNTS, 'required', ['read:blocks'], { params: P.pageParams }),
  route('GET', '/api/v1/mutes', ACCOUNTS, 'required', ['read:mutes'], { params: P.pageParams }),
  route('GET', '/api/v2/search', ACCOUNTS, 'optional', ['read:search'], { params: P.searchParams }),
  route('GET', '/api/v1/search', ACCOUNTS, 'optional', ['read:search'], { params: P.searchParams }),

  // Statuses, media, timelines (apps/accounts/src/api/v1/statuses …)
  route('POST', '/api/v1/statuses', ACCOUNTS, 'required', ['write:statuses'], {
    rateLimit: ['statuses'],
    params: P.postStatusParams,
  }),
  route('GET', '/api/v1/statuses', ACCOUNTS, 'optional', ['read:statuses'], { params: P.listStatusesParams }),
  route('GET', '/api/v1/statuses/:id', ACCOUNTS, 'optional', ['read:statuses']),
  route('PUT', '/api/v1/statuses/:id', ACCOUNTS, 'required', ['write:statuses'], {
    rateLimit: ['statuses'],
    params: P.updateStatusParams,
  }),
  route('PATCH', '/api/v1/statuses/:id', ACCOUNTS, 'required', ['write:statuses'], {
    rateLimit: ['statuses'],
    params: P.updateStatusParams,
  }),
  route('GET', '/api/v1/statuses/:id/history', ACCOUNTS, 'optional', ['read:statuses']),
  route('GET', '/api/v1/statuses/:id/source', ACCOUNTS, 'required', ['read:statuses']),
  route('GET', '/api/v1/statuses/:id/context', ACCOUNTS, 'optional', ['read:statuses']),
  // Mastodon 4.4's async refreshes (the `Mastodon-Async-Refresh` header of a thread's context).
  route('GET', '/api/v1_alpha/async_refreshes/:id', ACCOUNTS, 'required', ['read']),
  route('GET', '/api/v1/statuses/:id/reblogged_by', ACCOUNTS, 'optional', ['read:accounts'], {
    params: P.pageParams,
  }),
  route('GET', '/api/v1/statuses/:id/favourited_by', ACCOUNTS, 'optional', ['read:accounts'], {
    params: P.pageParams,
  }),
  route('POST', '/api/v1/statuses/:id/bookmark', ACCOUNTS, 'required', ['write:bookmarks']),
  route('POST', '/api/v1/statuses/:id/unbookmark', ACCOUNTS, 'required', ['write:bookmarks']),
  route('POST', '/api/v1/statuses/:id/mute', ACCOUNTS, 'required', ['write:mutes']),
  route('POST', '/api/v1/statuses/:id/unmute', ACCOUNTS, 'required', ['write:mutes']),
  route('GET', '/api/v1/polls/:id', ACCOUNTS, 'optional', ['read:statuses']),
  route('POST', '/api/v1/polls/:id/votes', ACCOUNTS, 'required', ['write:statuses'], {
    params: P.voteParams,
  }),
  route('GET', '/api/v1/conversations', ACCOUNTS, 'required', ['read:statuses'], { params: P.pageParams }),
  route('POST', '/api/v1/conversations/:id/read', ACCOUNTS, 'required', ['write:conversations']),
  route('DELETE', '/api/v1/conversations/:id', ACCOUNTS, 'required', ['write:conversations']),
  route('GET', '/api/v1/scheduled_statuses', ACCOUNTS, 'required', ['read:statuses'], {
    params: P.pageParams,
  }),
  route('GET', '/api/v1/scheduled_statuses/:id', ACCOUNTS, 'required', ['read:statuses']),
  route('PUT', '/api/v1/scheduled_statuses/:id', ACCOUNTS, 'required', ['write:statuses'], {
    params: P.updateScheduledStatusParams,
  }),
  route('DELETE', '/api/v1/scheduled_statuses/:id', ACCOUNTS, 'required', ['write:statuses']),
  route('GET', '/api/v1/bookmarks', ACCOUNTS, 'required', ['read:bookmarks'], { params: P.pageParams }),
  route('GET', '/api/v1/favourites', ACCOUNTS, 'required', ['read:favourites'], { params: P.pageParams }),
  route('DELETE', '/api/v1/statuses/:id', ACCOUNTS, 'required', ['write:statuses'], {
    rateLimit: ['deletes'],
  }),
  route('POST', '/api/v1/statuses/:id/favourite', ACCOUNTS, 'required', ['write:favourites']),
  route('POST', '/api/v1/statuses/:id/unfavourite', ACCOUNTS, 'required', ['write:favourites']),
  route('POST', '/api/v1/statuses/:id/reblog', ACCOUNTS, 'required', ['write:statuses'], {
    rateLimit: ['statuses'],
    params: P.reblogParams,
  }),
  route('POST', '/api/v1/statuses/:id/unreblog', ACCOUNTS, 'required', ['write:statuses'], {
    rateLimit: ['deletes'],
  }),
  route('POST', '/api/v1/statuses/:id/pin', ACCOUNTS, 'required', ['write:accounts']),
  route('POST', '/api/v1/statuses/:id/unpin', ACCOUNTS, 'required', ['write:accounts']),
  // Quotes (docs/statuses.md, "Quotes").
  route('GET', '/api/v1/statuses/:id/quotes', ACCOUNTS, 'required', ['read:statuses'], {
    params: P.statusQuotesParams,
  }),
  route('POST', '/api/v1/statuses/:id/quotes/:quoting_status_id/revoke', ACCOUNTS, 'required', [
    'write:statuses',
  ]),
  route('PUT', '/api/v1/statuses/:id/interaction_policy', ACCOUNTS, 'required', ['write:statuses'], {
    params: P.interactionPolicyParams,
  }),
  route('POST', '/api/v1/media', ACCOUNTS, 'required', ['write:media'], {
    body: 'upload',
    rateLimit: ['media'],
    params: P.uploadMediaParams,
  }),
  route('POST', '/api/v2/media', ACCOUNTS, 'required', ['write:media'], {
    body: 'upload',
    rateLimit: ['media'],
    params: P.uploadMediaParams,
  }),
  route('GET', '/api/v1/media/:id', ACCOUNTS, 'required', ['write:media']),
  route('PUT', '/api/v1/media/:id', ACCOUNTS, 'required', ['write:media'], {
    body: 'upload',
    params: P.updateMediaParams,
  }),
  route('DELETE', '/api/v1/media/:id', ACCOUNTS, 'required', ['write:media']),
  route('GET', '/api/v1/timelines/public', ACCOUNTS, 'optional', ['read:statuses'], {
    params: P.publicTimelineParams,
  }),
  route('GET', '/api/v1/timelines/home', ACCOUNTS, 'required', ['read:statuses'], {
    params: P.homeTimelineParams,
  }),
  route('GET', '/api/v1/timelines/list/:id', ACCOUNTS, 'required', ['read:lists'], {
    params: P.listTimelineParams,
  }),

  // Lists (apps/accounts/src/api/v1/lists)
  route('GET', '/api/v1/lists', ACCOUNTS, 'required', ['read:lists']),
  route('POST', '/api/v1/lists', ACCOUNTS, 'required', ['write:lists'], { params: P.listParams }),
  route('GET', '/api/v1/lists/:id', ACCOUNTS, 'required', ['read:lists']),
  route('PUT', '/api/v1/lists/:id', ACCOUNTS, 'required', ['write:lists'], { params: P.listParams }),
  route('PATCH', '/api/v1/lists/:id', ACCOUNTS, 'required', ['write:lists'], { params: P.listParams }),
  route('DELETE', '/api/v1/lists/:id', ACCOUNTS, 'required', ['write:lists']),
  route('GET', '/api/v1/lists/:id/accounts', ACCOUNTS, 'required', ['read:lists'], {
    params: P.listMembersParams,
  }),
  route('POST', '/api/v1/lists/:id/accounts', ACCOUNTS, 'required', ['write:lists'], {
    params: P.listAccountIdsParams,
  }),
  route('DELETE', '/api/v1/lists/:id/accounts', ACCOUNTS, 'required', ['write:lists'], {
    params: P.listAccountIdsParams,
  }),
  route('GET', '/api/v1/accounts/:id/lists', ACCOUNTS, 'required', ['read:lists']),
  // Hashtags (apps/accounts/src/api/v1/tags)
  route('GET', '/api/v1/tags/:id', ACCOUNTS, 'optional'),
  route('POST', '/api/v1/tags/:id/follow', ACCOUNTS, 'required', ['write:follows'], {
    rateLimit: ['follows'],
  }),
  route('POST', '/api/v1/tags/:id/unfollow', ACCOUNTS, 'required', ['write:follows']),
  route('GET', '/api/v1/followed_tags', ACCOUNTS, 'required', ['read:follows'], {
    params: P.followedTagsParams,
  }),
  route('GET', '/api/v1/timelines/tag/:hashtag', ACCOUNTS, 'optional', ['read:statuses'], {
    params: P.tagTimelineParams,
  }),
  route('GET', '/media/:file', ACCOUNTS, 'none'),
  route('GET', '/avatars/original/missing.png', ACCOUNTS, 'none'),
  route('GET', '/headers/original/missing.png', ACCOUNTS, 'none'),

  // Notifications
  route('GET', '/api/v1/notifications', ACCOUNTS, 'required', ['read:notifications'], {
    params: P.notificationsParams,
  }),
  route('GET', '/api/v1/notifications/:id', ACCOUNTS, 'required', ['read:notifications']),
  route('POST', '/api/v1/notifications/clear', ACCOUNTS, 'required', ['write:notifications']),
  route('POST', '/api/v1/notifications/:id/dismiss', ACCOUNTS, 'required', ['write:notifications']),
  route('GET', '/api/v1/notifications/unread_count', ACCOUNTS, 'required', ['read:notifications'], {
    params: P.unreadCountParams,
  }),
  // Grouped notifications (apps/accounts/src/api/v2/notifications.ts; docs/discovery.md); `:id` is a group key
  route('GET', '/api/v2/notifications', ACCOUNTS, 'required', ['read:notifications'], {
    params: P.groupedNotificationsParams,
  }),
  route('GET', '/api/v2/notifications/unread_count', ACCOUNTS, 'required', ['read:notifications'], {
    params: P.unreadCountParams,
  }),
  route('GET', '/api/v2/notifications/:id', ACCOUNTS, 'required', ['read:notifications'], {
    params: P.notificationGroupParams,
  }),
  route('GET', '/api/v2/notifications/:id/accounts', ACCOUNTS, 'required', ['read:notifications'], {
    params: P.pageParams,
  }),
  route('POST', '/api/v2/notifications/:id/dismiss', ACCOUNTS, 'required', ['write:notifications']),
  // Notification policy and requests (apps/accounts/src/api/v1/notifications/requests.ts; docs/discovery.md)
  route('GET', '/api/v2/notifications/policy', ACCOUNTS, 'required', ['read:notifications']),
  route('PATCH', '/api/v2/notifications/policy', ACCOUNTS, 'required', ['write:notifications'], {
    params: P.notificationPolicyParams,
  }),
  route('GET', '/api/v1/notifications/policy', ACCOUNTS, 'required', ['read:notifications']),
  route('PATCH', '/api/v1/notifications/policy', ACCOUNTS, 'required', ['write:notifications'], {
    params: P.notificationPolicyV1Params,
  }),
  route('GET', '/api/v1/notifications/requests', ACCOUNTS, 'required', ['read:notifications'], {
    params: P.pageParams,
  }),
  // Mastodon asks write:notifications for everything but the list, reading one request included
  route('GET', '/api/v1/notifications/requests/merged', ACCOUNTS, 'required', ['write:notifications']),
  route('GET', '/api/v1/notifications/requests/:id', ACCOUNTS, 'required', ['write:notifications']),
  route('POST', '/api/v1/notifications/requests/accept', ACCOUNTS, 'required', ['write:notifications'], {
    params: P.notificationRequestsBulkParams,
  }),
  route('POST', '/api/v1/notifications/requests/dismiss', ACCOUNTS, 'required', ['write:notifications'], {
    params: P.notificationRequestsBulkParams,
  }),
  route('POST', '/api/v1/notifications/requests/:id/accept', ACCOUNTS, 'required', ['write:notifications']),
  route('POST', '/api/v1/notifications/requests/:id/dismiss', ACCOUNTS, 'required', ['write:notifications']),

  // Administration (apps/accounts/src/api/v1/admin; docs/moderation.md). Every admin route names the Mastodon
  // permission bit its caller's role must hold (403 "This action is not allowed" otherwise), on top of its scope.
  // Mastodon's admin API, then the Roost additions for what Mastodon manages only on its web pages.
  admin('GET', '/api/v1/admin/accounts', ['admin:read:accounts'], 'manage_users', {
    params: P.adminAccountsParams,
  }),
  admin('GET', '/api/v2/admin/accounts', ['admin:read:accounts'], 'manage_users', {
    params: P.adminAccountsV2Params,
  }),
  admin('GET', '/api/v1/admin/accounts/:id', ['admin:read:accounts'], 'manage_users'),
  admin('DELETE', '/api/v1/admin/accounts/:id', ['admin:write:accounts'], 'delete_user_data'),
  admin('POST', '/api/v1/admin/accounts/:id/approve', ['admin:write:accounts'], 'manage_users'),
  admin('POST', '/api/v1/admin/accounts/:id/reject', ['admin:write:accounts'], 'manage_users'),
  admin('POST', '/api/v1/admin/accounts/:id/action', ['admin:write:accounts'], 'manage_users', {
    params: P.accountActionParams,
  }),
  admin('POST', '/api/v1/admin/accounts/:id/enable', ['admin:write:accounts'], 'manage_users'),
  admin('POST', '/api/v1/admin/accounts/:id/unsilence', ['admin:write:accounts'], 'manage_users'),
  admin('POST', '/api/v1/admin/accounts/:id/unsuspend', ['admin:write:accounts'], 'manage_users'),
  admin('POST', '/api/v1/admin/accounts/:id/unsensitive', ['admin:write:accounts'], 'manage_users'),
  // A Roost addition among the account actions (docs/moderation.md, "Unsubscribing from push").
  admin('POST', '/api/v1/admin/accounts/:id/unsubscribe_push', ['admin:write:accounts'], 'manage_users', {
    description:
      'A Roost addition: removes every Web Push subscription of a local account, so nothing more is pushed to it ' +
      'until its user subscribes again. Answers the Admin::Account; 422 for a remote account, which has no ' +
      'subscriptions here.',
  }),
  admin('GET', '/api/v1/admin/domain_blocks', ['admin:read:domain_blocks'], 'manage_federation', {
    params: P.pageParams,
  }),
  admin('GET', '/api/v1/admin/domain_blocks/:id', ['admin:read:domain_blocks'], 'manage_federation'),
  admin('POST', '/api/v1/admin/domain_blocks', ['admin:write:domain_blocks'], 'manage_federation', {
    params: P.adminDomainBlockParams,
  }),
  admin('PUT', '/api/v1/admin/domain_blocks/:id', ['admin:write:domain_blocks'], 'manage_federation', {
    params: P.adminDomainBlockParams,
  }),
  admin('DELETE', '/api/v1/admin/domain_blocks/:id', ['admin:write:domain_blocks'], 'manage_federation'),
  admin('GET', '/api/v1/admin/domain_allows', ['admin:read:domain_allows'], 'manage_federation', {
    params: P.pageParams,
  }),
  admin('GET', '/api/v1/admin/domain_allows/:id', ['admin:read:domain_allows'], 'manage_federation'),
  admin('POST', '/api/v1/admin/domain_allows', ['admin:write:domain_allows'], 'manage_federation', {
    params: P.adminDomainParams,
  }),
  admin('DELETE', '/api/v1/admin/domain_allows/:id', ['admin:write:domain_allows'], 'manage_federation'),
  admin('GET', '/api/v1/admin/email_domain_blocks', ['admin:read:email_domain_blocks'], 'manage_blocks', {
    params: P.pageParams,
  }),
  admin('GET', '/api/v1/admin/email_domain_blocks/:id', ['admin:read:email_domain_blocks'], 'manage_blocks'),
  admin('POST', '/api/v1/admin/email_domain_blocks', ['admin:write:email_domain_blocks'], 'manage_blocks', {
    params: P.adminDomainParams,
  }),
  admin(
    'DELETE',
    '/api/v1/admin/email_domain_blocks/:id',
    ['admin:write:email_domain_blocks'],
    'manage_blocks',
  ),
  admin(
    'GET',
    '/api/v1/admin/canonical_email_blocks',
    ['admin:read:canonical_email_blocks'],
    'manage_blocks',
    {
      params: P.pageParams,
    },
  ),
  admin(
    'GET',
    '/api/v1/admin/canonical_email_blocks/:id',
    ['admin:read:canonical_email_blocks'],
    'manage_blocks',
  ),
  admin(
    'POST',
    '/api/v1/admin/canonical_email_blocks',
    ['admin:write:canonical_email_blocks'],
    'manage_blocks',
    {
      params: P.adminCanonicalEmailBlockParams,
    },
  ),
  admin(
    'POST',
    '/api/v1/admin/canonical_email_blocks/test',
    ['admin:read:canonical_email_blocks'],
    'manage_blocks',
    {
      params: P.adminCanonicalEmailTestParams,
    },
  ),
  admin(
    'DELETE',
    '/api/v1/admin/canonical_email_blocks/:id',
    ['admin:write:canonical_email_blocks'],
    'manage_blocks',
  ),
  // A Roost addition: servers known and their delivery health (docs/federation.md, "Delivery health")
  admin('GET', '/api/v1/admin/instances', ['admin:read'], 'manage_federation', {
    params: P.adminInstancesParams,
  }),
  // Relays: Roost additions (Mastodon manages them in its web admin only; docs/federation.md, "Relays").
  admin('GET', '/api/v1/admin/relays', ['admin:read'], 'manage_federation', { description: RELAYS }),
  admin('POST', '/api/v1/admin/relays', ['admin:write'], 'manage_federation', {
    params: P.adminRelayParams,
    description: RELAYS,
  }),
  admin('POST', '/api/v1/admin/relays/:id/enable', ['admin:write'], 'manage_federation', {
    description: RELAYS,
  }),
  admin('POST', '/api/v1/admin/relays/:id/disable', ['admin:write'], 'manage_federation', {
    description: RELAYS,
  }),
  admin('DELETE', '/api/v1/admin/relays/:id', ['admin:write'], 'manage_federation', { description: RELAYS }),
  admin('GET', '/api/v1/admin/reports', ['admin:read:reports'], 'manage_reports', {
    params: P.adminReportsParams,
  }),
  admin('GET', '/api/v1/admin/reports/:id', ['admin:read:reports'], 'manage_reports'),
  admin('PUT', '/api/v1/admin/reports/:id', ['admin:write:reports'], 'manage_reports', {
    params: P.adminUpdateReportParams,
  }),
  admin('POST', '/api/v1/admin/reports/:id/assign_to_self', ['admin:write:reports'], 'manage_reports'),
  admin('POST', '/api/v1/admin/reports/:id/unassign', ['admin:write:reports'], 'manage_reports'),
  admin('POST', '/api/v1/admin/reports/:id/resolve', ['admin:write:reports'], 'manage_reports'),
  admin('POST', '/api/v1/admin/reports/:id/reopen', ['admin:write:reports'], 'manage_reports'),
  admin('GET', '/api/v1/admin/ip_blocks', ['admin:read:ip_blocks'], 'manage_blocks', {
    params: P.pageParams,
  }),
  admin('GET', '/api/v1/admin/ip_blocks/:id', ['admin:read:ip_blocks'], 'manage_blocks'),
  admin('POST', '/api/v1/admin/ip_blocks', ['admin:write:ip_blocks'], 'manage_blocks', {
    params: P.ipBlockParams,
  }),
  admin('PUT', '/api/v1/admin/ip_blocks/:id', ['admin:write:ip_blocks'], 'manage_blocks', {
    params: P.ipBlockParams,
  }),
  admin('DELETE', '/api/v1/admin/ip_blocks/:id', ['admin:write:ip_blocks'], 'manage_blocks'),
  // Custom emojis: Roost additions (Mastodon manages them in its web admin only; docs/emoji.md).
  admin('GET', '/api/v1/admin/custom_emojis', ['admin:read'], 'manage_custom_emojis', {
    params: P.adminEmojisParams,
  }),
  admin('GET', '/api/v1/admin/custom_emojis/:id', ['admin:read'], 'manage_custom_emojis'),
  admin('POST', '/api/v1/admin/custom_emojis', ['admin:write'], 'manage_custom_emojis', {
    body: 'upload',
    params: P.adminCreateEmojiParams,
  }),
  admin('PATCH', '/api/v1/admin/custom_emojis/:id', ['admin:write'], 'manage_custom_emojis', {
    params: P.adminUpdateEmojiParams,
  }),
  admin('DELETE', '/api/v1/admin/custom_emojis/:id', ['admin:write'], 'manage_custom_emojis'),
  admin('POST', '/api/v1/admin/custom_emojis/:id/copy', ['admin:write'], 'manage_custom_emojis'),
  // The dashboard: Mastodon's measures, dimensions and retention; the queues' health is a Roost addition.
  admin('POST', '/api/v1/admin/measures', ['admin:read'], 'view_dashboard', {
    params: P.adminMeasuresParams,
  }),
  admin('POST', '/api/v1/admin/dimensions', ['admin:read'], 'view_dashboard', {
    params: P.adminDimensionsParams,
  }),
  admin('POST', '/api/v1/admin/retention', ['admin:read'], 'view_dashboard', {
    params: P.adminRetentionParams,
  }),
  admin('GET', '/api/v1/admin/queues', ['admin:read'], 'view_devops'),
  // Trends review (Mastodon's): what trends, rejected items included, and the moderators' verdicts.
  admin('GET', '/api/v1/admin/trends/tags', ['admin:read'], 'manage_taxonomies', { params: P.trendsParams }),
  admin('POST', '/api/v1/admin/trends/tags/:id/approve', ['admin:write'], 'manage_taxonomies'),
  admin('POST', '/api/v1/admin/trends/tags/:id/reject', ['admin:write'], 'manage_taxonomies'),
  admin('GET', '/api/v1/admin/trends/statuses', ['admin:read'], 'manage_taxonomies', {
    params: P.trendsParams,
  }),
  admin('POST', '/api/v1/admin/trends/statuses/:id/approve', ['admin:write'], 'manage_taxonomies'),
  admin('POST', '/api/v1/admin/trends/statuses/:id/reject', ['admin:write'], 'manage_taxonomies'),
  admin('GET', '/api/v1/admin/trends/links', ['admin:read'], 'manage_taxonomies', { params: P.trendsParams }),
  admin('POST', '/api/v1/admin/trends/links/:id/approve', ['admin:write'], 'manage_taxonomies'),
  admin('POST', '/api/v1/admin/trends/links/:id/reject', ['admin:write'], 'manage_taxonomies'),
  // Roles: Roost additions (Mastodon's roles pages; docs/moderation.md, "Roles and permissions").
  admin('GET', '/api/v1/admin/roles', ['admin:read'], 'manage_roles'),
  admin('GET', '/api/v1/admin/roles/:id', ['admin:read'], 'manage_roles'),
  admin('POST', '/api/v1/admin/roles', ['admin:write'], 'manage_roles', { params: P.adminRoleParams }),
  admin('PUT', '/api/v1/admin/roles/:id', ['admin:write'], 'manage_roles', { params: P.adminRoleParams }),
  admin('DELETE', '/api/v1/admin/roles/:id', ['admin:write'], 'manage_roles'),
  admin('POST', '/api/v1/admin/accounts/:id/role', ['admin:write:accounts'], 'manage_roles', {
    params: P.adminAssignRoleParams,
  }),
  // Webhooks: Roost additions (Mastodon's webhooks pages; docs/moderation.md, "Webhooks").
  admin('GET', '/api/v1/admin/webhooks', ['admin:read'], 'manage_webhooks'),
  admin('GET', '/api/v1/admin/webhooks/:id', ['admin:read'], 'manage_webhooks'),
  admin('POST', '/api/v1/admin/webhooks', ['admin:write'], 'manage_webhooks', {
    params: P.adminWebhookParams,
  }),
  admin('PUT', '/api/v1/admin/webhooks/:id', ['admin:write'], 'manage_webhooks', {
    params: P.adminWebhookParams,
  }),
  admin('DELETE', '/api/v1/admin/webhooks/:id', ['admin:write'], 'manage_webhooks'),
  admin('POST', '/api/v1/admin/webhooks/:id/enable', ['admin:write'], 'manage_webhooks'),
  admin('POST', '/api/v1/admin/webhooks/:id/disable', ['admin:write'], 'manage_webhooks'),
  admin('POST', '/api/v1/admin/webhooks/:id/rotate_secret', ['admin:write'], 'manage_webhooks'),
  // Server settings, rules and announcements: Roost additions (Mastodon's settings pages; docs/moderation.md).
  admin('GET', '/api/v1/admin/settings', ['admin:read'], 'manage_settings'),
  admin('PUT', '/api/v1/admin/settings', ['admin:write'], 'manage_settings', {
    params: P.adminSettingsParams,
  }),
  admin('GET', '/api/v1/admin/rules', ['admin:read'], 'manage_rules'),
  admin('POST', '/api/v1/admin/rules', ['admin:write'], 'manage_rules', { params: P.adminRuleParams }),
  admin('PUT', '/api/v1/admin/rules/:id', ['admin:write'], 'manage_rules', { params: P.adminRuleParams }),
  admin('DELETE', '/api/v1/admin/rules/:id', ['admin:write'], 'manage_rules'),
  admin('GET', '/api/v1/admin/announcements', ['admin:read'], 'manage_announcements', {
    params: P.pageParams,
  }),
  admin('POST', '/api/v1/admin/announcements', ['admin:write'], 'manage_announcements', {
    params: P.adminAnnouncementParams,
  }),
  admin('PUT', '/api/v1/admin/announcements/:id', ['admin:write'], 'manage_announcements', {
    params: P.adminAnnouncementParams,
  }),
  admin('DELETE', '/api/v1/admin/announcements/:id', ['admin:write'], 'manage_announcements'),
  admin('POST', '/api/v1/admin/announcements/:id/publish', ['admin:write'], 'manage_announcements'),
  admin('POST', '/api/v1/admin/announcements/:id/unpublish', ['admin:write'], 'manage_announcements'),
  // Moderation notes on an account or a report: Roost additions (Mastodon's are on its web pages only;
  // docs/moderation.md, "Moderation notes").
  admin('GET', '/api/v1/admin/accounts/:id/notes', ['admin:read:accounts'], 'manage_reports', {
    params: P.pageParams,
    description: NOTES,
  }),
  admin('POST', '/api/v1/admin/accounts/:id/notes', ['admin:write:accounts'], 'manage_reports', {
    params: P.adminNoteParams,
    description: NOTES,
  }),
  admin('DELETE', '/api/v1/admin/accounts/:id/notes/:note_id', ['admin:write:accounts'], 'manage_reports', {
    description: NOTES,
  }),
  admin('GET', '/api/v1/admin/reports/:id/notes', ['admin:read:reports'], 'manage_reports', {
    params: P.pageParams,
    description: NOTES,
  }),
  admin('POST', '/api/v1/admin/reports/:id/notes', ['admin:write:reports'], 'manage_reports', {
    params: P.adminNoteParams,
    description: NOTES,
  }),
  admin('DELETE', '/api/v1/admin/reports/:id/notes/:note_id', ['admin:write:reports'], 'manage_reports', {
    description: NOTES,
  }),
  // The audit log: a Roost addition (Mastodon's audit log page; docs/moderation.md, "Audit log").
  admin('GET', '/api/v1/admin/action_logs', ['admin:read'], 'view_audit_log', {
    params: P.adminActionLogParams,
  }),

  // Start-up calls and discovery (apps/accounts/src/api; docs/discovery.md)
  route('GET', '/api/v1/markers', ACCOUNTS, 'required', ['read:statuses'], { params: P.getMarkersParams }),
  route('POST', '/api/v1/markers', ACCOUNTS, 'required', ['write:statuses'], { params: P.saveMarkersParams }),
  route('GET', '/api/v1/preferences', ACCOUNTS, 'required', ['read:accounts']),
  route('GET', '/api/v1/announcements', ACCOUNTS, 'required'),
  route('POST', '/api/v1/announcements/:id/dismiss', ACCOUNTS, 'required', ['write:accounts']),
  route('PUT', '/api/v1/announcements/:id/reactions/:name', ACCOUNTS, 'required', ['write:favourites']),
  route('DELETE', '/api/v1/announcements/:id/reactions/:name', ACCOUNTS, 'required', ['write:favourites']),

  route('POST', '/api/v1/accounts/:id/note', ACCOUNTS, 'required', ['write:accounts'], {
    params: P.accountNoteParams,
  }),
  route('POST', '/api/v1/accounts/:id/pin', ACCOUNTS, 'required', ['write:accounts']),
  route('POST', '/api/v1/accounts/:id/unpin', ACCOUNTS, 'required', ['write:accounts']),
  route('POST', '/api/v1/accounts/:id/endorse', ACCOUNTS, 'required', ['write:accounts']),
  route('POST', '/api/v1/accounts/:id/unendorse', ACCOUNTS, 'required', ['write:accounts']),
  route('GET', '/api/v1/endorsements', ACCOUNTS, 'required', ['read:accounts'], { params: P.pageParams }),
  route('GET', '/api/v1/accounts/:id/endorsements', ACCOUNTS, 'optional', ['read:accounts'], {
    params: P.pageParams,
  }),
  route('GET', '/api/v1/accounts/familiar_followers', ACCOUNTS, 'required', ['read:follows'], {
    params: P.familiarFollowersParams,
  }),
  route('GET', '/api/v1/domain_blocks', ACCOUNTS, 'required', ['read:blocks'], {
    params: P.domainBlocksParams,
  }),
  route('POST', '/api/v1/domain_blocks', ACCOUNTS, 'required', ['write:blocks'], {
    params: P.domainBlockParams,
  }),
  route('DELETE', '/api/v1/domain_blocks', ACCOUNTS, 'required', ['write:blocks'], {
    params: P.domainBlockParams,
  }),

  route('POST', '/api/v1/reports', ACCOUNTS, 'required', ['write:reports'], { params: P.reportParams }),

  // Trends, suggestions, directory, featured tags (apps/accounts/src/api/v1/discovery.ts; docs/discovery.md)
  route('GET', '/api/v1/trends', ACCOUNTS, 'optional', [], { params: P.trendsParams }),
  route('GET', '/api/v1/trends/tags', ACCOUNTS, 'optional', [], { params: P.trendsParams }),
  route('GET', '/api/v1/trends/statuses', ACCOUNTS, 'optional', [], { params: P.trendsParams }),
  route('GET', '/api/v1/trends/links', ACCOUNTS, 'optional', [], { params: P.trendsParams }),
  route('GET', '/api/v2/suggestions', ACCOUNTS, 'required', ['read:accounts'], {
    params: P.suggestionsParams,
  }),
  route('GET', '/api/v1/suggestions', ACCOUNTS, 'required', ['read:accounts'], {
    params: P.suggestionsParams,
  }),
  route('DELETE', '/api/v1/suggestions/:id', ACCOUNTS, 'required', ['read:accounts']),
  route('GET', '/api/v1/directory', ACCOUNTS, 'optional', ['read:accounts'], { params: P.directoryParams }),
  route('GET', '/api/v1/featured_tags', ACCOUNTS, 'required', ['read:accounts']),
  route('POST', '/api/v1/featured_tags', ACCOUNTS, 'required', ['write:accounts'], {
    params: P.featuredTagParams,
  }),
  route('DELETE', '/api/v1/featured_tags/:id', ACCOUNTS, 'required', ['write:accounts']),
  route('GET', '/api/v1/featured_tags/suggestions', ACCOUNTS, 'required', ['read:accounts']),
  route('GET', '/api/v1/accounts/:id/featured_tags', ACCOUNTS, 'optional', ['read:accounts']),
  route('POST', '/api/v1/tags/:id/feature', ACCOUNTS, 'required', ['write:accounts']),
  route('POST', '/api/v1/tags/:id/unfeature', ACCOUNTS, 'required', ['write:accounts']),

  // Filters (apps/accounts/src/api/v2/filters.ts, api/v1/filters.ts; docs/discovery.md)
  route('GET', '/api/v2/filters', ACCOUNTS, 'required', ['read:filters']),
  route('POST', '/api/v2/filters', ACCOUNTS, 'required', ['write:filters'], { params: P.filterParams }),
  route('GET', '/api/v2/filters/:id', ACCOUNTS, 'required', ['read:filters']),
  route('PUT', '/api/v2/filters/:id', ACCOUNTS, 'required', ['write:filters'], { params: P.filterParams }),
  route('DELETE', '/api/v2/filters/:id', ACCOUNTS, 'required', ['write:filters']),
  route('GET', '/api/v2/filters/:id/keywords', ACCOUNTS, 'required', ['read:filters']),
  route('POST', '/api/v2/filters/:id/keywords', ACCOUNTS, 'required', ['write:filters'], {
    params: P.filterKeywordParams,
  }),
  route('GET', '/api/v2/filters/keywords/:id', ACCOUNTS, 'required', ['read:filters']),
  route('PUT', '/api/v2/filters/keywords/:id', ACCOUNTS, 'required', ['write:filters'], {
    params: P.filterKeywordParams,
  }),
  route('DELETE', '/api/v2/filters/keywords/:id', ACCOUNTS, 'required', ['write:filters']),
  route('GET', '/api/v2/filters/:id/statuses', ACCOUNTS, 'required', ['read:filters']),
  route('POST', '/api/v2/filters/:id/statuses', ACCOUNTS, 'required', ['write:filters'], {
    params: P.filterStatusParams,
  }),
  route('GET', '/api/v2/filters/statuses/:id', ACCOUNTS, 'required', ['read:filters']),
  route('DELETE', '/api/v2/filters/statuses/:id', ACCOUNTS, 'required', ['write:filters']),
  route('GET', '/api/v1/filters', ACCOUNTS, 'required', ['read:filters']),
  route('POST', '/api/v1/filters', ACCOUNTS, 'required', ['write:filters'], { params: P.filterV1Params }),
  route('GET', '/api/v1/filters/:id', ACCOUNTS, 'required', ['read:filters']),
  route('PUT', '/api/v1/filters/:id', ACCOUNTS, 'required', ['write:filters'], { params: P.filterV1Params }),
  route('DELETE', '/api/v1/filters/:id', ACCOUNTS, 'required', ['write:filters']),

  // Instance
  route('GET', '/api/v1/instance', ACCOUNTS, 'none'),
  route('GET', '/api/v2/instance', ACCOUNTS, 'none'),
  route('GET', '/api/v1/instance/rules', ACCOUNTS, 'none'),
  route('GET', '/api/v1/instance/domain_blocks', ACCOUNTS, 'optional'),
  route('GET', '/api/v1/instance/extended_description', ACCOUNTS, 'none'),
  route('GET', '/api/v1/instance/translation_languages', ACCOUNTS, 'none'),
  route('GET', '/api/v1/instance/peers', ACCOUNTS, 'none'),
  route('GET', '/api/v1/instance/activity', ACCOUNTS, 'none'),
  route('GET', '/api/v1/custom_emojis', ACCOUNTS, 'none'),

  // Web Push subscriptions (apps/push/src/api)
  route('POST', '/api/v1/push/subscription', PUSH, 'required', ['push'], {
    params: P.createSubscriptionParams,
  }),
  route('GET', '/api/v1/push/subscription', PUSH, 'required', ['push']),
  route('PUT', '/api/v1/push/subscription', PUSH, 'required', ['push'], {
    params: P.updateSubscriptionParams,
  }),
  route('DELETE', '/api/v1/push/subscription', PUSH, 'required', ['push']),

  // The streaming API (apps/streaming; docs/streaming.md): Server-Sent Events, and WebSocket upgrades at
  // /api/v1/streaming. The service checks the token and each stream's scopes itself (access `stream`).
  route('GET', '/api/v1/streaming/health', STREAMING, 'none'),
  route('GET', STREAMING_WEBSOCKET_PATH, STREAMING, 'stream', ['read:statuses', 'read:notifications'], {
    params: P.webSocketStreamParams,
  }),
  route('GET', '/api/v1/streaming/user', STREAMING, 'stream', ['read:statuses'], { params: P.streamParams }),
  route('GET', '/api/v1/streaming/user/notification', STREAMING, 'stream', ['read:notifications'], {
    params: P.streamParams,
  }),
  route('GET', '/api/v1/streaming/public', STREAMING, 'stream', ['read:statuses'], {
    params: P.publicStreamParams,
  }),
  route('GET', '/api/v1/streaming/public/local', STREAMING, 'stream', ['read:statuses'], {
    params: P.publicStreamParams,
  }),
  route('GET', '/api/v1/streaming/public/remote', STREAMING, 'stream', ['read:statuses'], {
    params: P.publicStreamParams,
  }),
  route('GET', '/api/v1/streaming/hashtag', STREAMING, 'stream', ['read:statuses'], {
    params: P.hashtagStreamParams,
  }),
  route('GET', '/api/v1/streaming/hashtag/local', STREAMING, 'stream', ['read:statuses'], {
    params: P.hashtagStreamParams,
  }),
  route('GET', '/api/v1/streaming/list', STREAMING, 'stream', ['read:statuses'], {
    params: P.listStreamParams,
  }),
  route('GET', '/api/v1/streaming/direct', STREAMING, 'stream', ['read:statuses'], {
    params: P.streamParams,
  }),
  // Any other path below: the streaming server's own 400 `Unknown channel requested`, as Mastodon answers.
  route('GET', STREAMING_OTHER_PATHS, STREAMING, 'stream', ['read:statuses']),

  // The gateway's own (apps/gateway/src/service.ts)
  route('GET', '/api/openapi.json', GATEWAY, 'none'),
  // The web app (apps/web, served by apps/gateway/src/web.ts; docs/architecture.md, "The web app"): its pages, each
  // the same HTML page, and its files. It talks to Roost only through the API above.
  ...WEB_PAGES.map((path) => route('GET', path, GATEWAY, 'none')),
  route('GET', `${WEB_ASSETS_PATH}/:file`, GATEWAY, 'none'),
]

/**
 * Orders routes so that literal segments win over parameters (`/accounts/verify_credentials` before
 * `/accounts/:id`), whatever order they were written in.
 */
export function bySpecificity<T extends { path: string }>(a: T, b: T): number {
  const as = a.path.split('/')
  const bs = b.path.split('/')
  // A literal segment before a parameter, a parameter before a wildcard (which matches the rest of the path).
  const rank = (segment: string) => (segment.startsWith('*') ? 2 : segment.startsWith(':') ? 1 : 0)
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const ar = rank(as[i]!)
    const br = rank(bs[i]!)
    if (ar !== br) return ar - br
  }
  return bs.length - as.length
}

export function findRoute(method: string, path: string): Route | undefined {
  return ROUTES.find((r) => r.method === method && r.path === path)
}
