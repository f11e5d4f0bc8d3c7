// One jest setup for the whole repository. TypeScript is compiled by swc; the globalSetup creates this run's
// template database and Redis prefix (see packages/testing).
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/packages', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // masto 7's CommonJS build requires change-case 5, which is ESM-only: compile it too.
  transformIgnorePatterns: ['/node_modules/(?!(change-case)/)'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // Generous: a test stack starts several processes, and a shared 2-core machine can be slow at times.
  testTimeout: 90000,
  maxWorkers: 2,
}
