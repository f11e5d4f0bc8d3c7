// The suites that must hold however Roost is deployed, run again by `npm test` (scripts/test.ts) beside the main run:
// once with two copies of every process and once with every process through PgBouncer in transaction mode
// (docs/operations.md, "What the tests run in each mode"). Each mode is a jest project named after it, so every
// result and failure says which mode it ran in. By hand: `npx jest -c jest.modes.config.mjs test/faults`.
import base from './jest.config.js'

const SUITES = [
  '<rootDir>/test/faults/**/*.test.ts',
  '<rootDir>/test/accounts/activities/pipeline.test.ts',
  '<rootDir>/test/streaming/events.test.ts',
]

/** A project running SUITES with `env` set for each test file (test/mode-env.ts), as `startStack` reads it. */
const mode = (displayName, env) => {
  const { maxWorkers: _, testTimeout: __, ...project } = base
  return {
    ...project,
    displayName,
    testMatch: SUITES,
    globalSetup: '<rootDir>/test/global-setup-modes.ts',
    globals: { ROOST_TEST_MODE_ENV: env },
    setupFiles: ['<rootDir>/test/mode-env.ts'],
  }
}

/** @type {import('jest').Config} */
export default {
  // What jest reads only here, not from a project.
  maxWorkers: base.maxWorkers,
  testTimeout: base.testTimeout,
  // Any limit makes jest run the files in worker processes even with one worker (`npm test` gives this run
  // --maxWorkers=1, or a single file): in jest's own process, what a fault test leaves open after its servers were
  // killed accumulates over the files and can keep the run from ever ending.
  workerIdleMemoryLimit: '1GB',
  projects: [mode('copies=2', { ROOST_TEST_COPIES: '2' }), mode('pgbouncer', { ROOST_TEST_PGBOUNCER: '1' })],
}
