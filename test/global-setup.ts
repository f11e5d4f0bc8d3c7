import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { migrateAccounts } from '../apps/accounts/src/service'
import { migratePush } from '../apps/push/src/service'
import { adminQuery, checkServers, databaseUrl, templateDatabase } from '@roost/testing'

/**
 * Once per jest run: checks the servers, builds the web app, then creates this run's template database with every
 * service's migrations applied. Each stack copies it (see environment.ts), so test files never share data.
 */
export default async function globalSetup() {
  await checkServers()
  // The web app's files the gateway serves (apps/web/dist, not committed): built for every run, in well under a
  // second, so the browser tests see the sources as they are.
  const web = spawnSync(process.execPath, [path.join(__dirname, '..', 'apps', 'web', 'build.mjs')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  if (web.status !== 0) throw new Error('building the web app (apps/web/build.mjs) failed')
  await createTemplate()
}

/**
 * This run's id and its template database, migrated. The jest.modes.config.mjs run's set-up (global-setup-modes.ts)
 * does only this: it runs beside the main run, whose build of the web app its own would race.
 */
export async function createTemplate() {
  process.env.ROOST_TEST_RUN = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`
  const template = templateDatabase()
  await adminQuery(`CREATE DATABASE "${template}"`)
  await migrateAccounts(databaseUrl(template))
  await migratePush(databaseUrl(template))
}
