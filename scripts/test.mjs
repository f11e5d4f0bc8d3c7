#!/usr/bin/env node
// `npm test`: runs every jest suite once and ends with the totals on a line of their own, `N passed, N failed`,
// the line CI reads. Extra arguments go to jest (`npm test -- test/oauth`).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const onPath = (command) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0

// What the suite drives besides Node, Postgres and Redis, the way `npm start` provides Redis: Debian's Chromium
// for the page tests (playwright-core never downloads a browser) and docker-compose, which checks
// docker-compose.yml offline. Missing ones are installed with apt-get when we may (root), once; otherwise the run
// stops here, naming them and the command, instead of failing or skipping tests later.
const TOOLS = [
  { name: 'chromium', present: () => existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') },
  { name: 'docker-compose', present: () => onPath('docker-compose') },
]
const missing = TOOLS.filter((tool) => !tool.present()).map((tool) => tool.name)
if (missing.length) {
  const install = `apt-get install -y ${missing.join(' ')}`
  const what = `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing (the tests drive ${missing.length > 1 ? 'them' : 'it'})`
  if (process.getuid?.() !== 0 || !onPath('apt-get')) {
    console.error(`npm test: ${what}. Install: sudo ${install}`)
    process.exit(1)
  }
  console.log(`npm test: ${what}: installing Debian's packages, once: ${install}`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
  spawnSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'inherit', env })
  const still = TOOLS.filter((tool) => !tool.present()).map((tool) => tool.name)
  if (still.length) {
    console.error(`npm test: installing ${still.join(' and ')} failed (see above). Install: ${install}`)
    process.exit(1)
  }
}

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
