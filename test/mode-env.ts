// The environment of a jest project of jest.modes.config.js (`globals.ROOST_TEST_MODE_ENV`), set before each test
// file of that project loads: its stacks then run in that mode (test/stack.ts reads ROOST_TEST_COPIES and
// ROOST_TEST_PGBOUNCER). The test file's process.env is its own, so the other projects' files are untouched.
const env = (globalThis as { ROOST_TEST_MODE_ENV?: Record<string, string> }).ROOST_TEST_MODE_ENV
Object.assign(process.env, env)
