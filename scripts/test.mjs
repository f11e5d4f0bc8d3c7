#!/usr/bin/env node
// `npm test`: runs every jest suite once and ends with the totals on a line of their own, `N passed, N failed`,
// the line CI reads. Extra arguments go to jest (`npm test -- test/oauth`).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const report = join(mkdtempSync(join(tmpdir(), 'roost-jest-')), 'report.json')
const jest = spawnSync(
  process.execPath,
  [
    join('node_modules', 'jest', 'bin', 'jest.js'),
    '--json',
    `--outputFile=${report}`,
    ...process.argv.slice(2),
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, LOG_DESTINATION: process.env.LOG_DESTINATION ?? join(tmpdir(), 'roost-test.log') },
  },
)

let passed = 0
let failed = 0
try {
  const result = JSON.parse(readFileSync(report, 'utf8'))
  passed = result.numPassedTests
  // A suite that fails to load counts as a failure too, even though it ran no test.
  failed = result.numFailedTests + result.numRuntimeErrorTestSuites
} catch {
  failed = 1
  console.error('jest wrote no report: it failed before running the tests (see above).')
}
console.log(`\n${passed} passed, ${failed} failed`)
process.exit(jest.status === 0 && failed === 0 && passed > 0 ? 0 : 1)
