import { checkServers } from '@roost/testing'
import { createTemplate } from './global-setup'

/**
 * The set-up of the jest.modes.config.mjs run: test/global-setup.ts without the web app's build. `npm test` runs it
 * beside the main run, which builds apps/web/dist (removing it first), and none of its suites serve the web app.
 */
export default async function globalSetupModes() {
  await checkServers()
  await createTemplate()
}
