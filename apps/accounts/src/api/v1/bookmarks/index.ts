import type { Request, Response } from 'express'
import type { AccountsContext } from '../../../context'
import { sendMarkedStatuses } from '../status_lists'

/** GET /api/v1/bookmarks */
export const listBookmarks = (ctx: AccountsContext, req: Request, res: Response) =>
  sendMarkedStatuses(ctx, req, res, 'bookmarks')
