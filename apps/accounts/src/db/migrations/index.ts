import type { Migration } from '@roost/db'
import * as oauthAndUsers from './20261121000000_oauth_and_users'
import * as accountProfiles from './20261121000100_account_profiles'
import * as userSignUpApplication from './20261121000210_user_sign_up_application'
import * as social from './20261121000300_social'
import * as ipBlocks from './20261121000500_ip_blocks'
import * as threadsBookmarksEdits from './20261122000000_threads_bookmarks_edits'
import * as activities from './20261123100000_activities'
import * as statusApplication from './20261123200000_status_application'
import * as homeFeeds from './20261123210000_home_feeds'
import * as polls from './20261123300000_polls'
import * as pollExpiry from './20261124400000_poll_expiry'
import * as lists from './20261124500000_lists'
import * as markersRulesAnnouncements from './20261124600000_markers_rules_announcements'
import * as scheduledStatuses from './20261124700000_scheduled_statuses'
import * as keysetIndexes from './20261124900000_keyset_indexes'
import * as tags from './20261125000000_tags'
import * as accountConversations from './20261125400000_account_conversations'
import * as accountExtras from './20261125450000_account_extras'
import * as federation from './20261125500000_federation'
import * as reports from './20261125550000_reports'
import * as filters from './20261125610046_filters'
import * as federationDelivery from './20261125624545_federation_delivery'
import * as notificationGroups from './20261125630046_notification_groups'
import * as domainBlocks from './20261125634545_domain_blocks'
import * as statusSearch from './20261125640046_status_search'
import * as featuredTagsSuggestions from './20261125700046_featured_tags_suggestions'
import * as reportActions from './20261125710046_report_actions'
import * as mediaMeta from './20261125720046_media_meta'
import * as statusUris from './20261127010001_status_uris'
import * as incomingStatuses from './20261127020001_incoming_statuses'
import * as inboxTombstones from './20261127030001_inbox_tombstones'
import * as profileRefresh from './20261127030002_profile_refresh'
import * as remotePolls from './20261127040001_remote_polls'
import * as reversedHosts from './20261128010001_reversed_hosts'
import * as localPublicStatuses from './20261128010002_local_public_statuses'
import * as accountNamePrefixes from './20261128010003_account_name_prefixes'
import * as statusStats from './20261128020001_status_stats'
import * as watchedFollows from './20261128030001_watched_follows'
import * as mediaProcessing from './20261129030001_media_processing'
import * as mediaCleanup from './20261129040001_media_cleanup'
import * as fediContent from './20261129060001_fedi_content'
import * as yourData from './20261129080001_your_data'
import * as quotes from './20261129090001_quotes'
import * as accountWarnings from './20261129110001_account_warnings'
import * as weeklyLogins from './20261129120001_weekly_logins'
import * as remoteFieldHtml from './20261130010000_remote_field_html'
import * as relays from './20261130020001_relays'
import * as fetchMarks from './20261130020002_fetch_marks'
import * as signatureSchemes from './20261130030001_signature_schemes'
import * as userRoles from './20261130040001_user_roles'
import * as adminActionLogs from './20261130040002_admin_action_logs'
import * as sensitizedAccounts from './20261130040003_sensitized_accounts'
import * as webhooks from './20261130040004_webhooks'
import * as serverSettings from './20261130040005_server_settings'
import * as allowsAndEmailBlocks from './20261130040006_allows_and_email_blocks'
import * as statusTrendable from './20261130040007_status_trendable'
import * as notificationPolicies from './20261130070001_notification_policies'
import * as userTokens from './20261129035000_user_tokens'
import * as twoFactor from './20261129070001_two_factor'
import * as customEmojis from './20261129050001_custom_emojis'

/** The schema of the accounts app (the API, its worker and the CLI). */
export const SCHEMA = 'accounts'

/** Every migration of the `accounts` schema, in order. Add new files here. */
export const migrations: Migration[] = [
  { name: '20261121000000_oauth_and_users', ...oauthAndUsers },
  { name: '20261121000100_account_profiles', ...accountProfiles },
  { name: '20261121000210_user_sign_up_application', ...userSignUpApplication },
  { name: '20261121000300_social', ...social },
  { name: '20261121000500_ip_blocks', ...ipBlocks },
  { name: '20261122000000_threads_bookmarks_edits', ...threadsBookmarksEdits },
  { name: '20261123100000_activities', ...activities },
  { name: '20261123200000_status_application', ...statusApplication },
  { name: '20261123210000_home_feeds', ...homeFeeds },
  { name: '20261123300000_polls', ...polls },
  { name: '20261124400000_poll_expiry', ...pollExpiry },
  { name: '20261124500000_lists', ...lists },
  { name: '20261124600000_markers_rules_announcements', ...markersRulesAnnouncements },
  { name: '20261124700000_scheduled_statuses', ...scheduledStatuses },
  { name: '20261124900000_keyset_indexes', ...keysetIndexes },
  { name: '20261125000000_tags', ...tags },
  { name: '20261125400000_account_conversations', ...accountConversations },
  { name: '20261125450000_account_extras', ...accountExtras },
  { name: '20261125500000_federation', ...federation },
  { name: '20261125550000_reports', ...reports },
  { name: '20261125610046_filters', ...filters },
  { name: '20261125624545_federation_delivery', ...federationDelivery },
  { name: '20261125630046_notification_groups', ...notificationGroups },
  { name: '20261125634545_domain_blocks', ...domainBlocks },
  { name: '20261125640046_status_search', ...statusSearch },
  { name: '20261125700046_featured_tags_suggestions', ...featuredTagsSuggestions },
  { name: '20261125710046_report_actions', ...reportActions },
  { name: '20261125720046_media_meta', ...mediaMeta },
  { name: '20261127010001_status_uris', ...statusUris },
  { name: '20261127020001_incoming_statuses', ...incomingStatuses },
  { name: '20261127030001_inbox_tombstones', ...inboxTombstones },
  { name: '20261127030002_profile_refresh', ...profileRefresh },
  { name: '20261127040001_remote_polls', ...remotePolls },
  { name: '20261128010001_reversed_hosts', ...reversedHosts },
  { name: '20261128010002_local_public_statuses', ...localPublicStatuses },
  { name: '20261128010003_account_name_prefixes', ...accountNamePrefixes },
  { name: '20261128020001_status_stats', ...statusStats },
  { name: '20261128030001_watched_follows', ...watchedFollows },
  { name: '20261129030001_media_processing', ...mediaProcessing },
  { name: '20261129035000_user_tokens', ...userTokens },
  { name: '20261129040001_media_cleanup', ...mediaCleanup },
  { name: '20261129050001_custom_emojis', ...customEmojis },
  { name: '20261129060001_fedi_content', ...fediContent },
  { name: '20261129070001_two_factor', ...twoFactor },
  { name: '20261129080001_your_data', ...yourData },
  { name: '20261129090001_quotes', ...quotes },
  { name: '20261129110001_account_warnings', ...accountWarnings },
  { name: '20261129120001_weekly_logins', ...weeklyLogins },
  { name: '20261130010000_remote_field_html', ...remoteFieldHtml },
  { name: '20261130020001_relays', ...relays },
  { name: '20261130020002_fetch_marks', ...fetchMarks },
  { name: '20261130030001_signature_schemes', ...signatureSchemes },
  { name: '20261130040001_user_roles', ...userRoles },
  { name: '20261130040002_admin_action_logs', ...adminActionLogs },
  { name: '20261130040003_sensitized_accounts', ...sensitizedAccounts },
  { name: '20261130040004_webhooks', ...webhooks },
  { name: '20261130040005_server_settings', ...serverSettings },
  { name: '20261130040006_allows_and_email_blocks', ...allowsAndEmailBlocks },
  { name: '20261130040007_status_trendable', ...statusTrendable },
  { name: '20261130070001_notification_policies', ...notificationPolicies },
]
