import type { Request, Response } from 'express'
import type { serviceRoutes } from '@roost/auth'
import type { AccountsContext } from '../context'
import { createAccount, listAccounts } from './v1/accounts'
import { lookupAccount } from './v1/accounts/lookup'
import { searchAccountsRoute } from './v1/accounts/search'
import { showAccount } from './v1/accounts/show'
import { updateCredentials } from './v1/accounts/update_credentials'
import { verifyCredentials } from './v1/accounts/verify_credentials'
import {
  accountAction,
  approveAccount,
  listAdminAccounts,
  rejectAccount,
  showAdminAccount,
  unsuspend,
} from './v1/admin/accounts'
import { customEmojis } from './v1/custom_emojis'
import { instanceV1 } from './v1/instance'
import { instanceV2 } from './v2/instance'
import { searchRoute } from './v2/search'

/** Sign-up, profiles, account search, instance documents and account moderation. */
export function profileRoutes(api: ReturnType<typeof serviceRoutes>, ctx: AccountsContext) {
  const on =
    (fn: (ctx: AccountsContext, req: Request, res: Response) => unknown) => (req: Request, res: Response) =>
      fn(ctx, req, res)
  api.post('/api/v1/accounts', on(createAccount))
  api.get('/api/v1/accounts', on(listAccounts))
  api.get('/api/v1/accounts/verify_credentials', on(verifyCredentials))
  api.patch('/api/v1/accounts/update_credentials', on(updateCredentials))
  api.get('/api/v1/accounts/lookup', on(lookupAccount))
  api.get('/api/v1/accounts/search', on(searchAccountsRoute))
  api.get('/api/v1/accounts/:id', on(showAccount))
  api.get('/api/v2/search', on(searchRoute))
  api.get('/api/v1/search', on(searchRoute))

  api.get('/api/v1/admin/accounts', on(listAdminAccounts))
  api.get('/api/v1/admin/accounts/:id', on(showAdminAccount))
  api.post('/api/v1/admin/accounts/:id/approve', on(approveAccount))
  api.post('/api/v1/admin/accounts/:id/reject', on(rejectAccount))
  api.post('/api/v1/admin/accounts/:id/action', on(accountAction))
  api.post('/api/v1/admin/accounts/:id/unsuspend', on(unsuspend))

  api.get('/api/v1/instance', on(instanceV1))
  api.get('/api/v2/instance', on(instanceV2))
  api.get('/api/v1/custom_emojis', customEmojis)
}
