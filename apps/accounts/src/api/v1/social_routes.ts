import type { Request, Response } from 'express'
import type { serviceRoutes } from '@roost/auth'
import type { AccountsContext } from '../../context'
import { follow, removeFromFollowers, unfollow, block, unblock, mute, unmute } from './accounts/follow'
import { followers, following } from './accounts/followers'
import { relationships } from './accounts/relationships'
import { accountStatuses } from './accounts/statuses'
import { listBlocks } from './blocks'
import { authorizeFollowRequest, listFollowRequests, rejectFollowRequest } from './follow_requests'
import { showMedia, uploadMedia } from './media'
import { listMutes } from './mutes'
import { clearNotifications, dismissNotification, getNotification, listNotifications } from './notifications'
import { favourite, pin, reblogStatus, unfavourite, unpin, unreblogStatus } from './statuses/actions'
import { deleteOwnStatus, getStatus, postStatus } from './statuses'
import { publicTimeline } from './timelines/public'

type Handler = (ctx: AccountsContext, req: Request, res: Response) => unknown

/** Statuses, media, relationships, timelines and notifications (the social half of the accounts service). */
export function addSocialRoutes(api: ReturnType<typeof serviceRoutes>, ctx: AccountsContext) {
  const on = (fn: Handler) => (req: Request, res: Response) => fn(ctx, req, res)

  api.post('/api/v1/statuses', on(postStatus))
  api.get('/api/v1/statuses/:id', on(getStatus))
  api.delete('/api/v1/statuses/:id', on(deleteOwnStatus))
  api.post('/api/v1/statuses/:id/favourite', on(favourite))
  api.post('/api/v1/statuses/:id/unfavourite', on(unfavourite))
  api.post('/api/v1/statuses/:id/reblog', on(reblogStatus))
  api.post('/api/v1/statuses/:id/unreblog', on(unreblogStatus))
  api.post('/api/v1/statuses/:id/pin', on(pin))
  api.post('/api/v1/statuses/:id/unpin', on(unpin))
  api.post('/api/v1/media', on(uploadMedia))
  api.post('/api/v2/media', on(uploadMedia))
  api.get('/api/v1/media/:id', on(showMedia))
  api.get('/api/v1/timelines/public', on(publicTimeline))

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
}
