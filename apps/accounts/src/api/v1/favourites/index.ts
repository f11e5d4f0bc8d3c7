import type { Request, Response } from 'express'
import type { AccountsContext } from '../../../context'
import { sendMarkedStatuses } from '../status_lists'

/** GET /api/v1/favourites */
export const listFavourites = (ctx: AccountsContext, req: Request, res: Response) =>
  sendMarkedStatuses(ctx, req, res, 'favourites')
