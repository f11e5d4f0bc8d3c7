import { randomBytes } from 'node:crypto'
import { migrateAccounts } from '../apps/accounts/src/service'
import { migratePush } from '../apps/push/src/service'
import { adminQuery, checkServers, databaseUrl, templateDatabase } from '@roost/testing'

/**
 * Once per jest run: checks the servers, then creates this run's template database with every service's
 * migrations applied. Each stack copies it (see environment.ts), so test files never share data.
 */
export default async function globalSetup() {
  await checkServers()
  process.env.ROOST_TEST_RUN = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`
  const template = templateDatabase()
  await adminQuery(`CREATE DATABASE "${template}"`)
  await migrateAccounts(databaseUrl(template))
  await migratePush(databaseUrl(template))
}
