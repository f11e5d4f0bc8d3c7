import type { ServiceRoutes } from '@roost/routes'
import type { AccountsContext } from './context'
import { bindContext } from './context'
import { createApplication, verifyApplication } from './oauth/applications'
import { decideAuthorization, showAuthorization } from './oauth/authorize'
import { authorizationServerMetadata, jwks } from './oauth/discovery'
import { revoke } from './oauth/revoke'
import { token } from './oauth/token'
import { confirmation, newConfirmation, requestConfirmation } from './auth/confirmation'
import { editPassword, newPassword, requestPasswordReset, resetPasswordWithToken } from './auth/passwords'
import { checkConfirmation, resendConfirmation } from './api/v1/emails/confirmations'
import { changeEmail, showEmail } from './settings/email'
import { changePasswordOnPage, showPassword } from './settings/password'
import { revokeApplication, showSessions } from './settings/sessions'
import { showSignIn, signIn } from './settings/sign_in'
import {
  addSecurityKey,
  confirmTwoFactor,
  deleteSecurityKey,
  disableTwoFactorPage,
  newRecoveryCodes,
  newSecurityKey,
  setupTwoFactor,
  showTwoFactor,
} from './settings/two_factor'
import {
  apiCreateInvite,
  apiExpireInvite,
  apiListInvites,
  inviteSignUp,
  postExpireInvite,
  postInvite,
  showInvite,
  showInvites,
} from './settings/invites'
import {
  downloadArchive,
  downloadCsv,
  postArchiveRequest,
  postImport,
  showExport,
  showImports,
} from './settings/your-data'
import { postDelete, showDelete } from './settings/deletion'
import { passwordChange } from './api/v1/user/password_change'
import { hostMeta } from './api/federation/host-meta'
import { nodeinfo, nodeinfoLinks } from './api/federation/nodeinfo'
import {
  actorDocument,
  featuredCollection,
  followersCollection,
  followingCollection,
  instanceActorDocument,
  instanceActorOutbox,
  noteDocument,
  createActivityDocument,
  repliesDocument,
  outboxCollection,
  profileOrActor,
  statusPageOrNote,
} from './api/federation/actors'
import { authorizedFetch } from './api/federation/authorized-fetch'
import { inbox } from './api/federation/inbox'
import { webfinger } from './api/federation/webfinger'
import { missingAvatarImage, missingHeaderImage } from './media/defaults'
import { serveMedia } from './media/storage'
import { createAccount, listAccounts } from './api/v1/accounts'
import { lookupAccount } from './api/v1/accounts/lookup'
import { searchAccountsRoute } from './api/v1/accounts/search'
import { showAccount } from './api/v1/accounts/show'
import { updateCredentials } from './api/v1/accounts/update_credentials'
import { verifyCredentials } from './api/v1/accounts/verify_credentials'
import {
  accountAction,
  approveAccount,
  deleteAdminAccount,
  enableAccount,
  listAdminAccounts,
  listAdminAccountsV2,
  rejectAccount,
  showAdminAccount,
  unsensitiveAccount,
  unsubscribePush,
  unsilenceAccount,
  unsuspend,
} from './api/v1/admin/accounts'
import { customEmojis } from './api/v1/custom_emojis'
import {
  copyAdminEmoji,
  createAdminEmoji,
  deleteAdminEmoji,
  listAdminEmojis,
  showAdminEmoji,
  updateAdminEmoji,
} from './api/v1/admin/custom_emojis'
import { dismiss, listAnnouncements, react, unreact } from './api/v1/announcements'
import {
  extendedDescription,
  instanceDomainBlocks,
  instanceRules,
  translationLanguages,
} from './api/v1/instance_extras'
import { getMarkers, postMarkers } from './api/v1/markers'
import {
  acceptNotificationRequest,
  acceptNotificationRequests,
  dismissNotificationRequest,
  dismissNotificationRequests,
  getNotificationPolicy,
  getNotificationPolicyV1,
  getNotificationRequest,
  listNotificationRequests,
  notificationRequestsMerged,
  updateNotificationPolicy,
  updateNotificationPolicyV1,
} from './api/v1/notifications/requests'
import { postReport } from './api/v1/reports'
import {
  assignReportToSelf,
  listAdminReports,
  reopenReport,
  updateAdminReport,
  resolveReport,
  showAdminReport,
  unassignReport,
} from './api/v1/admin/reports'
import {
  accountFeaturedTags,
  createFeaturedTag,
  deleteFeaturedTag,
  deleteSuggestion,
  directoryRoute,
  featuredTagSuggestions,
  featureTagRoute,
  listFeaturedTags,
  suggestionsV1,
  suggestionsV2,
  trendLinks,
  trendStatuses,
  trendTags,
  unfeatureTagRoute,
} from './api/v1/discovery'
import {
  createFilterStatus,
  createFilterRoute,
  createKeyword,
  deleteFilter,
  deleteFilterStatus,
  deleteKeyword,
  listFilters,
  listFilterStatuses,
  listKeywords,
  showFilter,
  showFilterStatus,
  showKeyword,
  updateFilterRoute,
  updateKeywordRoute,
} from './api/v2/filters'
import {
  dismissNotificationGroup,
  listGroupedNotifications,
  notificationGroupAccounts,
  showNotificationGroup,
  unreadGroupCount,
  unreadNotificationCount,
} from './api/v2/notifications'
import { createFilterV1, deleteFilterV1, listFiltersV1, showFilterV1, updateFilterV1 } from './api/v1/filters'
import {
  accountEndorsements,
  accountNote,
  familiarFollowers,
  listEndorsements,
  pinAccount,
  unpinAccount,
} from './api/v1/accounts/extras'
import { createDomainBlock, deleteDomainBlock, listDomainBlocks } from './api/v1/domain_blocks'
import { preferences } from './api/v1/preferences'
import { instanceV1 } from './api/v1/instance'
import { instanceActivity, instancePeers } from './api/v1/instance_activity'
import { listAdminInstances } from './api/v1/admin/instances'
import { createRelay, deleteRelay, disableRelay, enableRelay, listRelays } from './api/v1/admin/relays'
import { showAsyncRefresh } from './api/v1_alpha/async_refreshes'
import { assignRole, createRole, deleteRole, listRoles, showRole, updateRole } from './api/v1/admin/roles'
import { listActionLogs } from './api/v1/admin/action_logs'
import {
  createAccountNote,
  createReportNote,
  deleteAccountNote,
  deleteReportNote,
  listAccountNotes,
  listReportNotes,
} from './api/v1/admin/notes'
import {
  adminTrendLinks,
  adminTrendStatuses,
  adminTrendTags,
  approveTrendStatus,
  approveTrendTag,
  rejectTrendStatus,
  rejectTrendTag,
  reviewTrendLink,
} from './api/v1/admin/trends'
import {
  createCanonicalEmailBlock,
  createDomainAllow,
  createEmailDomainBlock,
  deleteCanonicalEmailBlock,
  deleteDomainAllow,
  deleteEmailDomainBlock,
  listCanonicalEmailBlocks,
  listDomainAllows,
  listEmailDomainBlocks,
  showCanonicalEmailBlock,
  showDomainAllow,
  showEmailDomainBlock,
  testCanonicalEmailBlocks,
} from './api/v1/admin/email_blocks'
import { dimensions, measures, queueHealth, retention } from './api/v1/admin/metrics'
import {
  createAdminAnnouncement,
  createAdminRule,
  deleteAdminAnnouncement,
  deleteAdminRule,
  listAdminAnnouncements,
  listAdminRules,
  publishAdminAnnouncement,
  showSettings,
  unpublishAdminAnnouncement,
  updateAdminAnnouncement,
  updateAdminRule,
  updateSettings,
} from './api/v1/admin/server'
import {
  createWebhook,
  deleteWebhook,
  disableWebhook,
  enableWebhook,
  listWebhooks,
  rotateWebhookSecret,
  showWebhook,
  updateWebhook,
} from './api/v1/admin/webhooks'
import { instanceV2 } from './api/v2/instance'
import { onReplica } from './replica'
import { searchRoute, searchRouteV1 } from './api/v2/search'
import { follow, removeFromFollowers, unfollow, block, unblock, mute, unmute } from './api/v1/accounts/follow'
import { followers, following } from './api/v1/accounts/followers'
import { relationships } from './api/v1/accounts/relationships'
import { accountStatuses } from './api/v1/accounts/statuses'
import { listBlocks } from './api/v1/blocks'
import { authorizeFollowRequest, listFollowRequests, rejectFollowRequest } from './api/v1/follow_requests'
import { deleteMedia, showMedia, updateMedia, uploadMedia } from './api/v1/media'
import { listMutes } from './api/v1/mutes'
import {
  clearNotifications,
  dismissNotification,
  getNotification,
  listNotifications,
} from './api/v1/notifications'
import {
  bookmark,
  favourite,
  muteConversation,
  pin,
  reblogStatus,
  unbookmark,
  unfavourite,
  unmuteConversation,
  unpin,
  unreblogStatus,
} from './api/v1/statuses/actions'
import { revokeStatusQuote, statusQuotes, updateInteractionPolicy } from './api/v1/statuses/quotes'
import { addAlias, listAliases, moveAway, removeAlias } from './api/v1/accounts/aliases'
import { quoteAuthorizationDocument } from './api/federation/quote_authorizations'
import { emojiDocument } from './api/federation/emojis'
import { deleteOwnStatus, getStatus, listStatuses, postStatus, updateStatus } from './api/v1/statuses'
import { statusHistory, statusSource } from './api/v1/statuses/history'
import { favouritedBy, rebloggedBy } from './api/v1/statuses/accounts'
import { statusContext } from './api/v1/statuses/context'
import { listBookmarks } from './api/v1/bookmarks'
import { deleteConversation, listConversations, readConversation } from './api/v1/conversations'
import {
  deleteScheduledStatus,
  listScheduledStatuses,
  showScheduledStatus,
  updateScheduledStatus,
} from './api/v1/scheduled_statuses'
import { getPoll, votePoll } from './api/v1/polls'
import { listFavourites } from './api/v1/favourites'
import { homeTimeline } from './api/v1/timelines/home'
import { publicTimeline } from './api/v1/timelines/public'
import { listTimeline } from './api/v1/timelines/list'
import {
  addMembers,
  createList,
  deleteList,
  listLists,
  listMembers,
  removeMembers,
  showList,
  updateList,
} from './api/v1/lists'
import { accountLists } from './api/v1/accounts/lists'
import { followedTags, followTagRoute, showTag, unfollowTagRoute } from './api/v1/tags'
import { tagTimeline } from './api/v1/timelines/tag'
import {
  createIpBlock,
  deleteIpBlock,
  listIpBlocks,
  showIpBlock,
  updateIpBlock,
} from './api/v1/admin/ip_blocks'
import {
  createDomainBlock as createAdminDomainBlock,
  deleteDomainBlock as deleteAdminDomainBlock,
  listDomainBlocks as listAdminDomainBlocks,
  showDomainBlock as showAdminDomainBlock,
  updateDomainBlock as updateAdminDomainBlock,
} from './api/v1/admin/domain_blocks'

/**
 * Every route the accounts service serves, and the handler behind it (files under api/ mirror the URL).
 * The scopes each route needs are in the route table, packages/routes/src/table.ts.
 */
export function accountsRoutes(api: ServiceRoutes, ctx: AccountsContext) {
  const on = bindContext(ctx)

  // OAuth server and apps (oauth/)
  api.post('/api/v1/apps', on(createApplication))
  api.get('/api/v1/apps/verify_credentials', on(verifyApplication))
  api.get('/oauth/authorize', on(showAuthorization))
  api.post('/oauth/authorize', on(decideAuthorization))
  api.post('/oauth/token', on(token))
  api.post('/oauth/revoke', on(revoke))
  api.get('/oauth/jwks', on(jwks))
  // The pages of links sent by mail, and the account calls around them (auth/, docs/security.md)
  api.get('/auth/confirmation', on(confirmation))
  api.get('/auth/confirmation/new', on(newConfirmation))
  api.post('/auth/confirmation', on(requestConfirmation))
  api.get('/auth/password/new', on(newPassword))
  api.post('/auth/password', on(requestPasswordReset))
  api.get('/auth/password/edit', on(editPassword))
  api.post('/auth/password/edit', on(resetPasswordWithToken))
  api.post('/api/v1/emails/confirmations', on(resendConfirmation))
  api.get('/api/v1/emails/check_confirmation', on(checkConfirmation))
  api.get('/auth/sign_in', on(showSignIn))
  api.post('/auth/sign_in', on(signIn))
  api.get('/settings/two_factor', on(showTwoFactor))
  api.post('/settings/two_factor/setup', on(setupTwoFactor))
  api.post('/settings/two_factor/confirm', on(confirmTwoFactor))
  api.post('/settings/two_factor/disable', on(disableTwoFactorPage))
  api.post('/settings/two_factor/recovery_codes', on(newRecoveryCodes))
  api.get('/settings/security_keys/new', on(newSecurityKey))
  api.post('/settings/security_keys', on(addSecurityKey))
  api.post('/settings/security_keys/:id/delete', on(deleteSecurityKey))
  api.get('/settings/sessions', on(showSessions))
  api.post('/settings/sessions/revoke', on(revokeApplication))
  api.get('/settings/password', on(showPassword))
  api.post('/settings/password', on(changePasswordOnPage))
  api.get('/settings/email', on(showEmail))
  api.post('/settings/email', on(changeEmail))
  api.post('/api/v1/user/password_change', on(passwordChange))
  // Invites, one's data and leaving (auth/; docs/security.md, "Invites", "Your data", "Leaving")
  api.get('/invite/:code', on(showInvite))
  api.post('/invite/:code', on(inviteSignUp))
  api.get('/settings/invites', on(showInvites))
  api.post('/settings/invites', on(postInvite))
  api.post('/settings/invites/:id/expire', on(postExpireInvite))
  api.get('/settings/export', on(showExport))
  api.post('/settings/export', on(postArchiveRequest))
  api.get('/settings/exports/archives/:id', on(downloadArchive))
  api.get('/settings/exports/:file', on(downloadCsv))
  api.get('/settings/imports', on(showImports))
  api.post('/settings/imports', on(postImport))
  api.get('/settings/delete', on(showDelete))
  api.post('/settings/delete', on(postDelete))
  api.get('/api/v1/invites', on(apiListInvites))
  api.post('/api/v1/invites', on(apiCreateInvite))
  api.delete('/api/v1/invites/:id', on(apiExpireInvite))
  api.get('/.well-known/oauth-authorization-server', on(authorizationServerMetadata))
  api.get('/.well-known/host-meta', on(hostMeta))
  api.get('/media/:file', on(serveMedia))
  api.get('/avatars/original/missing.png', missingAvatarImage)
  api.get('/headers/original/missing.png', missingHeaderImage)

  // Federation (api/federation/; docs/federation.md)
  api.get('/.well-known/webfinger', on(webfinger))
  api.get('/.well-known/nodeinfo', on(nodeinfoLinks))
  api.get('/nodeinfo/2.0', on(nodeinfo))
  api.get('/@:username', on(authorizedFetch('actor', profileOrActor)))
  api.get('/@:username/:id', on(authorizedFetch('object', statusPageOrNote)))
  api.get('/users/:username', on(authorizedFetch('actor', actorDocument)))
  api.get('/users/:username/statuses/:id', on(authorizedFetch('object', noteDocument)))
  api.get(
    '/users/:username/quote_authorizations/:id',
    on(authorizedFetch('object', quoteAuthorizationDocument)),
  )
  api.get('/users/:username/statuses/:id/activity', on(authorizedFetch('object', createActivityDocument)))
  api.get('/users/:username/statuses/:id/replies', on(authorizedFetch('object', repliesDocument)))
  api.get('/users/:username/outbox', on(authorizedFetch('object', onReplica(outboxCollection))))
  api.get('/users/:username/followers', on(authorizedFetch('object', onReplica(followersCollection))))
  api.get('/users/:username/following', on(authorizedFetch('object', onReplica(followingCollection))))
  api.get(
    '/users/:username/collections/featured',
    on(authorizedFetch('object', onReplica(featuredCollection))),
  )
  api.get('/emojis/:id', on(emojiDocument))
  api.get('/actor', on(instanceActorDocument))
  api.get('/actor/outbox', on(instanceActorOutbox))
  api.post('/inbox', on(inbox))
  api.post('/users/:username/inbox', on(inbox))

  // Accounts, search, instance and account moderation
  api.post('/api/v1/accounts', on(createAccount))
  api.get('/api/v1/accounts', on(listAccounts))
  api.get('/api/v1/accounts/verify_credentials', on(verifyCredentials))
  api.patch('/api/v1/accounts/update_credentials', on(updateCredentials))
  api.get('/api/v1/accounts/lookup', on(lookupAccount))
  api.get('/api/v1/accounts/search', on(searchAccountsRoute))
  api.get('/api/v1/accounts/aliases', on(listAliases))
  api.post('/api/v1/accounts/aliases', on(addAlias))
  api.delete('/api/v1/accounts/aliases', on(removeAlias))
  api.post('/api/v1/accounts/move', on(moveAway))
  api.get('/api/v1/accounts/:id', on(showAccount))
  api.get('/api/v2/search', on(searchRoute))
  api.get('/api/v1/search', on(searchRouteV1))

  api.get('/api/v1/admin/accounts', on(listAdminAccounts))
  api.get('/api/v2/admin/accounts', on(listAdminAccountsV2))
  api.get('/api/v1/admin/accounts/:id', on(showAdminAccount))
  api.post('/api/v1/admin/accounts/:id/approve', on(approveAccount))
  api.post('/api/v1/admin/accounts/:id/reject', on(rejectAccount))
  api.post('/api/v1/admin/accounts/:id/action', on(accountAction))
  api.post('/api/v1/admin/accounts/:id/unsuspend', on(unsuspend))
  api.post('/api/v1/admin/accounts/:id/enable', on(enableAccount))
  api.post('/api/v1/admin/accounts/:id/unsilence', on(unsilenceAccount))
  api.post('/api/v1/admin/accounts/:id/unsensitive', on(unsensitiveAccount))
  api.post('/api/v1/admin/accounts/:id/unsubscribe_push', on(unsubscribePush))
  api.delete('/api/v1/admin/accounts/:id', on(deleteAdminAccount))

  api.get('/api/v1/instance', on(instanceV1))
  api.get('/api/v2/instance', on(instanceV2))
  api.get('/api/v1/custom_emojis', on(customEmojis))
  api.get('/api/v1/instance/rules', on(instanceRules))
  api.get('/api/v1/instance/domain_blocks', on(instanceDomainBlocks))
  api.get('/api/v1/instance/extended_description', on(extendedDescription))
  api.get('/api/v1/instance/translation_languages', on(translationLanguages))
  api.get('/api/v1/instance/peers', on(instancePeers))
  api.get('/api/v1/instance/activity', on(instanceActivity))

  // Start-up calls and discovery (docs/discovery.md)
  api.get('/api/v1/markers', on(getMarkers))
  api.post('/api/v1/markers', on(postMarkers))
  api.get('/api/v1/preferences', on(preferences))
  api.get('/api/v1/announcements', on(listAnnouncements))
  api.post('/api/v1/announcements/:id/dismiss', on(dismiss))
  api.put('/api/v1/announcements/:id/reactions/:name', on(react))
  api.delete('/api/v1/announcements/:id/reactions/:name', on(unreact))
  api.post('/api/v1/accounts/:id/note', on(accountNote))
  api.post('/api/v1/accounts/:id/pin', on(pinAccount))
  api.post('/api/v1/accounts/:id/unpin', on(unpinAccount))
  api.post('/api/v1/accounts/:id/endorse', on(pinAccount))
  api.post('/api/v1/accounts/:id/unendorse', on(unpinAccount))
  api.get('/api/v1/endorsements', on(listEndorsements))
  api.get('/api/v1/accounts/:id/endorsements', on(accountEndorsements))
  api.get('/api/v1/accounts/familiar_followers', on(familiarFollowers))
  api.get('/api/v1/domain_blocks', on(listDomainBlocks))
  api.post('/api/v1/domain_blocks', on(createDomainBlock))
  api.delete('/api/v1/domain_blocks', on(deleteDomainBlock))
  api.post('/api/v1/reports', on(postReport))
  api.get('/api/v1/admin/reports', on(listAdminReports))
  api.get('/api/v1/admin/reports/:id', on(showAdminReport))
  api.put('/api/v1/admin/reports/:id', on(updateAdminReport))
  api.post('/api/v1/admin/reports/:id/assign_to_self', on(assignReportToSelf))
  api.post('/api/v1/admin/reports/:id/unassign', on(unassignReport))
  api.post('/api/v1/admin/reports/:id/resolve', on(resolveReport))
  api.post('/api/v1/admin/reports/:id/reopen', on(reopenReport))

  // Trends, suggestions, directory, featured tags
  api.get('/api/v1/trends', on(trendTags))
  api.get('/api/v1/trends/tags', on(trendTags))
  api.get('/api/v1/trends/statuses', on(trendStatuses))
  api.get('/api/v1/trends/links', on(trendLinks))
  api.get('/api/v2/suggestions', on(suggestionsV2))
  api.get('/api/v1/suggestions', on(suggestionsV1))
  api.delete('/api/v1/suggestions/:id', on(deleteSuggestion))
  api.get('/api/v1/directory', on(directoryRoute))
  api.get('/api/v1/featured_tags', on(listFeaturedTags))
  api.post('/api/v1/featured_tags', on(createFeaturedTag))
  api.delete('/api/v1/featured_tags/:id', on(deleteFeaturedTag))
  api.get('/api/v1/featured_tags/suggestions', on(featuredTagSuggestions))
  api.get('/api/v1/accounts/:id/featured_tags', on(accountFeaturedTags))
  api.post('/api/v1/tags/:id/feature', on(featureTagRoute))
  api.post('/api/v1/tags/:id/unfeature', on(unfeatureTagRoute))

  // Filters (docs/discovery.md, "Filters")
  api.get('/api/v2/filters', on(listFilters))
  api.post('/api/v2/filters', on(createFilterRoute))
  api.get('/api/v2/filters/:id', on(showFilter))
  api.put('/api/v2/filters/:id', on(updateFilterRoute))
  api.delete('/api/v2/filters/:id', on(deleteFilter))
  api.get('/api/v2/filters/:id/keywords', on(listKeywords))
  api.post('/api/v2/filters/:id/keywords', on(createKeyword))
  api.get('/api/v2/filters/keywords/:id', on(showKeyword))
  api.put('/api/v2/filters/keywords/:id', on(updateKeywordRoute))
  api.delete('/api/v2/filters/keywords/:id', on(deleteKeyword))
  api.get('/api/v2/filters/:id/statuses', on(listFilterStatuses))
  api.post('/api/v2/filters/:id/statuses', on(createFilterStatus))
  api.get('/api/v2/filters/statuses/:id', on(showFilterStatus))
  api.delete('/api/v2/filters/statuses/:id', on(deleteFilterStatus))
  api.get('/api/v1/filters', on(listFiltersV1))
  api.post('/api/v1/filters', on(createFilterV1))
  api.get('/api/v1/filters/:id', on(showFilterV1))
  api.put('/api/v1/filters/:id', on(updateFilterV1))
  api.delete('/api/v1/filters/:id', on(deleteFilterV1))

  // Statuses, media, relationships, timelines and notifications

  api.post('/api/v1/statuses', on(postStatus))
  api.get('/api/v1/statuses', on(listStatuses))
  api.get('/api/v1/statuses/:id', on(getStatus))
  api.put('/api/v1/statuses/:id', on(updateStatus))
  api.patch('/api/v1/statuses/:id', on(updateStatus))
  api.get('/api/v1/statuses/:id/history', on(statusHistory))
  api.get('/api/v1/statuses/:id/source', on(statusSource))
  api.get('/api/v1/statuses/:id/context', on(statusContext))
  api.get('/api/v1_alpha/async_refreshes/:id', on(showAsyncRefresh))
  api.get('/api/v1/statuses/:id/reblogged_by', on(rebloggedBy))
  api.get('/api/v1/statuses/:id/favourited_by', on(favouritedBy))
  api.post('/api/v1/statuses/:id/bookmark', on(bookmark))
  api.post('/api/v1/statuses/:id/unbookmark', on(unbookmark))
  api.post('/api/v1/statuses/:id/mute', on(muteConversation))
  api.post('/api/v1/statuses/:id/unmute', on(unmuteConversation))
  api.get('/api/v1/polls/:id', on(getPoll))
  api.post('/api/v1/polls/:id/votes', on(votePoll))
  api.get('/api/v1/conversations', on(listConversations))
  api.post('/api/v1/conversations/:id/read', on(readConversation))
  api.delete('/api/v1/conversations/:id', on(deleteConversation))
  api.get('/api/v1/scheduled_statuses', on(listScheduledStatuses))
  api.get('/api/v1/scheduled_statuses/:id', on(showScheduledStatus))
  api.put('/api/v1/scheduled_statuses/:id', on(updateScheduledStatus))
  api.delete('/api/v1/scheduled_statuses/:id', on(deleteScheduledStatus))
  api.get('/api/v1/bookmarks', on(listBookmarks))
  api.get('/api/v1/favourites', on(listFavourites))
  api.delete('/api/v1/statuses/:id', on(deleteOwnStatus))
  api.post('/api/v1/statuses/:id/favourite', on(favourite))
  api.post('/api/v1/statuses/:id/unfavourite', on(unfavourite))
  api.post('/api/v1/statuses/:id/reblog', on(reblogStatus))
  api.post('/api/v1/statuses/:id/unreblog', on(unreblogStatus))
  api.post('/api/v1/statuses/:id/pin', on(pin))
  api.post('/api/v1/statuses/:id/unpin', on(unpin))
  api.get('/api/v1/statuses/:id/quotes', on(statusQuotes))
  api.post('/api/v1/statuses/:id/quotes/:quoting_status_id/revoke', on(revokeStatusQuote))
  api.put('/api/v1/statuses/:id/interaction_policy', on(updateInteractionPolicy))
  api.post('/api/v1/media', on(uploadMedia))
  api.post('/api/v2/media', on(uploadMedia))
  api.get('/api/v1/media/:id', on(showMedia))
  api.put('/api/v1/media/:id', on(updateMedia))
  api.delete('/api/v1/media/:id', on(deleteMedia))
  api.get('/api/v1/timelines/public', on(publicTimeline))
  api.get('/api/v1/timelines/home', on(homeTimeline))
  api.get('/api/v1/timelines/list/:id', on(listTimeline))

  api.get('/api/v1/lists', on(listLists))
  api.post('/api/v1/lists', on(createList))
  api.get('/api/v1/lists/:id', on(showList))
  api.put('/api/v1/lists/:id', on(updateList))
  api.patch('/api/v1/lists/:id', on(updateList))
  api.delete('/api/v1/lists/:id', on(deleteList))
  api.get('/api/v1/lists/:id/accounts', on(listMembers))
  api.post('/api/v1/lists/:id/accounts', on(addMembers))
  api.delete('/api/v1/lists/:id/accounts', on(removeMembers))
  api.get('/api/v1/accounts/:id/lists', on(accountLists))

  api.get('/api/v1/tags/:id', on(showTag))
  api.post('/api/v1/tags/:id/follow', on(followTagRoute))
  api.post('/api/v1/tags/:id/unfollow', on(unfollowTagRoute))
  api.get('/api/v1/followed_tags', on(followedTags))
  api.get('/api/v1/timelines/tag/:hashtag', on(tagTimeline))

  api.get('/api/v1/accounts/relationships', on(relationships))
  api.get('/api/v1/accounts/:id/statuses', on(accountStatuses))
  api.get('/api/v1/accounts/:id/statuses/media', on(accountStatuses))
  api.get('/api/v1/accounts/:id/followers', on(followers))
  api.get('/api/v1/accounts/:id/following', on(following))
  api.post('/api/v1/accounts/:id/follow', on(follow))
  api.post('/api/v1/accounts/:id/unfollow', on(unfollow))
  api.post('/api/v1/accounts/:id/remove_from_followers', on(removeFromFollowers))
  api.post('/api/v1/accounts/:id/block', on(block))
  api.post('/api/v1/accounts/:id/unblock', on(unblock))
  api.post('/api/v1/accounts/:id/mute', on(mute))
  api.post('/api/v1/accounts/:id/unmute', on(unmute))
  api.get('/api/v1/follow_requests', on(listFollowRequests))
  api.post('/api/v1/follow_requests/:id/authorize', on(authorizeFollowRequest))
  api.post('/api/v1/follow_requests/:id/reject', on(rejectFollowRequest))
  api.get('/api/v1/blocks', on(listBlocks))
  api.get('/api/v1/mutes', on(listMutes))

  api.get('/api/v1/notifications', on(listNotifications))
  api.get('/api/v1/notifications/:id', on(getNotification))
  api.post('/api/v1/notifications/clear', on(clearNotifications))
  api.post('/api/v1/notifications/:id/dismiss', on(dismissNotification))
  api.get('/api/v1/notifications/unread_count', on(unreadNotificationCount))
  api.get('/api/v2/notifications', on(listGroupedNotifications))
  api.get('/api/v2/notifications/unread_count', on(unreadGroupCount))
  api.get('/api/v2/notifications/:id', on(showNotificationGroup))
  api.get('/api/v2/notifications/:id/accounts', on(notificationGroupAccounts))
  api.post('/api/v2/notifications/:id/dismiss', on(dismissNotificationGroup))
  api.get('/api/v2/notifications/policy', on(getNotificationPolicy))
  api.patch('/api/v2/notifications/policy', on(updateNotificationPolicy))
  api.get('/api/v1/notifications/policy', on(getNotificationPolicyV1))
  api.patch('/api/v1/notifications/policy', on(updateNotificationPolicyV1))
  api.get('/api/v1/notifications/requests', on(listNotificationRequests))
  api.get('/api/v1/notifications/requests/merged', on(notificationRequestsMerged))
  api.get('/api/v1/notifications/requests/:id', on(getNotificationRequest))
  api.post('/api/v1/notifications/requests/accept', on(acceptNotificationRequests))
  api.post('/api/v1/notifications/requests/dismiss', on(dismissNotificationRequests))
  api.post('/api/v1/notifications/requests/:id/accept', on(acceptNotificationRequest))
  api.post('/api/v1/notifications/requests/:id/dismiss', on(dismissNotificationRequest))

  // IP rules
  api.get('/api/v1/admin/domain_blocks', on(listAdminDomainBlocks))
  api.get('/api/v1/admin/domain_blocks/:id', on(showAdminDomainBlock))
  api.post('/api/v1/admin/domain_blocks', on(createAdminDomainBlock))
  api.put('/api/v1/admin/domain_blocks/:id', on(updateAdminDomainBlock))
  api.delete('/api/v1/admin/domain_blocks/:id', on(deleteAdminDomainBlock))
  api.get('/api/v1/admin/instances', on(listAdminInstances))
  api.get('/api/v1/admin/relays', on(listRelays))
  api.post('/api/v1/admin/relays', on(createRelay))
  api.post('/api/v1/admin/relays/:id/enable', on(enableRelay))
  api.post('/api/v1/admin/relays/:id/disable', on(disableRelay))
  api.delete('/api/v1/admin/relays/:id', on(deleteRelay))
  api.get('/api/v1/admin/ip_blocks', on(listIpBlocks))
  api.get('/api/v1/admin/ip_blocks/:id', on(showIpBlock))
  api.post('/api/v1/admin/ip_blocks', on(createIpBlock))
  api.put('/api/v1/admin/ip_blocks/:id', on(updateIpBlock))
  api.delete('/api/v1/admin/ip_blocks/:id', on(deleteIpBlock))
  api.get('/api/v1/admin/custom_emojis', on(listAdminEmojis))
  api.get('/api/v1/admin/custom_emojis/:id', on(showAdminEmoji))
  api.post('/api/v1/admin/custom_emojis', on(createAdminEmoji))
  api.patch('/api/v1/admin/custom_emojis/:id', on(updateAdminEmoji))
  api.delete('/api/v1/admin/custom_emojis/:id', on(deleteAdminEmoji))
  api.post('/api/v1/admin/custom_emojis/:id/copy', on(copyAdminEmoji))
  api.get('/api/v1/admin/roles', on(listRoles))
  api.get('/api/v1/admin/roles/:id', on(showRole))
  api.post('/api/v1/admin/roles', on(createRole))
  api.put('/api/v1/admin/roles/:id', on(updateRole))
  api.delete('/api/v1/admin/roles/:id', on(deleteRole))
  api.post('/api/v1/admin/accounts/:id/role', on(assignRole))
  api.get('/api/v1/admin/action_logs', on(listActionLogs))
  api.get('/api/v1/admin/accounts/:id/notes', on(listAccountNotes))
  api.post('/api/v1/admin/accounts/:id/notes', on(createAccountNote))
  api.delete('/api/v1/admin/accounts/:id/notes/:note_id', on(deleteAccountNote))
  api.get('/api/v1/admin/reports/:id/notes', on(listReportNotes))
  api.post('/api/v1/admin/reports/:id/notes', on(createReportNote))
  api.delete('/api/v1/admin/reports/:id/notes/:note_id', on(deleteReportNote))
  api.get('/api/v1/admin/trends/tags', on(adminTrendTags))
  api.post('/api/v1/admin/trends/tags/:id/approve', on(approveTrendTag))
  api.post('/api/v1/admin/trends/tags/:id/reject', on(rejectTrendTag))
  api.get('/api/v1/admin/trends/statuses', on(adminTrendStatuses))
  api.post('/api/v1/admin/trends/statuses/:id/approve', on(approveTrendStatus))
  api.post('/api/v1/admin/trends/statuses/:id/reject', on(rejectTrendStatus))
  api.get('/api/v1/admin/trends/links', on(adminTrendLinks))
  api.post('/api/v1/admin/trends/links/:id/approve', on(reviewTrendLink))
  api.post('/api/v1/admin/trends/links/:id/reject', on(reviewTrendLink))
  api.get('/api/v1/admin/domain_allows', on(listDomainAllows))
  api.get('/api/v1/admin/domain_allows/:id', on(showDomainAllow))
  api.post('/api/v1/admin/domain_allows', on(createDomainAllow))
  api.delete('/api/v1/admin/domain_allows/:id', on(deleteDomainAllow))
  api.get('/api/v1/admin/email_domain_blocks', on(listEmailDomainBlocks))
  api.get('/api/v1/admin/email_domain_blocks/:id', on(showEmailDomainBlock))
  api.post('/api/v1/admin/email_domain_blocks', on(createEmailDomainBlock))
  api.delete('/api/v1/admin/email_domain_blocks/:id', on(deleteEmailDomainBlock))
  api.get('/api/v1/admin/canonical_email_blocks', on(listCanonicalEmailBlocks))
  api.get('/api/v1/admin/canonical_email_blocks/:id', on(showCanonicalEmailBlock))
  api.post('/api/v1/admin/canonical_email_blocks', on(createCanonicalEmailBlock))
  api.post('/api/v1/admin/canonical_email_blocks/test', on(testCanonicalEmailBlocks))
  api.delete('/api/v1/admin/canonical_email_blocks/:id', on(deleteCanonicalEmailBlock))
  api.post('/api/v1/admin/measures', on(measures))
  api.post('/api/v1/admin/dimensions', on(dimensions))
  api.post('/api/v1/admin/retention', on(retention))
  api.get('/api/v1/admin/queues', on(queueHealth))
  api.get('/api/v1/admin/settings', on(showSettings))
  api.put('/api/v1/admin/settings', on(updateSettings))
  api.get('/api/v1/admin/rules', on(listAdminRules))
  api.post('/api/v1/admin/rules', on(createAdminRule))
  api.put('/api/v1/admin/rules/:id', on(updateAdminRule))
  api.delete('/api/v1/admin/rules/:id', on(deleteAdminRule))
  api.get('/api/v1/admin/announcements', on(listAdminAnnouncements))
  api.post('/api/v1/admin/announcements', on(createAdminAnnouncement))
  api.put('/api/v1/admin/announcements/:id', on(updateAdminAnnouncement))
  api.delete('/api/v1/admin/announcements/:id', on(deleteAdminAnnouncement))
  api.post('/api/v1/admin/announcements/:id/publish', on(publishAdminAnnouncement))
  api.post('/api/v1/admin/announcements/:id/unpublish', on(unpublishAdminAnnouncement))
  api.get('/api/v1/admin/webhooks', on(listWebhooks))
  api.get('/api/v1/admin/webhooks/:id', on(showWebhook))
  api.post('/api/v1/admin/webhooks', on(createWebhook))
  api.put('/api/v1/admin/webhooks/:id', on(updateWebhook))
  api.delete('/api/v1/admin/webhooks/:id', on(deleteWebhook))
  api.post('/api/v1/admin/webhooks/:id/enable', on(enableWebhook))
  api.post('/api/v1/admin/webhooks/:id/disable', on(disableWebhook))
  api.post('/api/v1/admin/webhooks/:id/rotate_secret', on(rotateWebhookSecret))
}
