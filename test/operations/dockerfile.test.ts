import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { HEAP_OPTIONS, MALLOC_ENV } from '../../scripts/dev/heap'

const ROOT = path.resolve(__dirname, '../..')
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
const stages = dockerfile.split(/^(?=FROM )/m).filter((part) => part.startsWith('FROM '))
const workspacePackages = ['apps', 'packages'].flatMap((dir) =>
  readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${dir}/${entry.name}/package.json`),
)

describe('the Dockerfile', () => {
  it('builds and runs on Node 24, the current LTS, in every stage', () => {
    expect(stages.map((stage) => stage.split('\n')[0]!.split(/\s+/)[1])).toEqual([
      'node:24-bookworm-slim',
      'node:24-bookworm-slim',
      'node:24-bookworm-slim',
    ])
  })

  it('keeps development on Node 20.19: engines unchanged, bundles built for node20', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
    expect(pkg.engines.node).toBe('>=20.19')
    expect(dockerfile).toContain('--target=node20')
    expect(readFileSync(path.join(ROOT, 'scripts/build-app.mjs'), 'utf8')).toContain("target: 'node20'")
  })

  it('copies every workspace package.json before npm ci, in the build and the dependencies stages', () => {
    const [build, deps] = stages
    expect(workspacePackages.filter((file) => !build!.includes(`COPY ${file} `))).toEqual([])
    expect(workspacePackages.filter((file) => !deps!.includes(`COPY --from=build /app/${file} `))).toEqual([])
  })

  it('gives each process the heap limits and malloc settings that npm start gives it', () => {
    // The ENV instruction, continued over lines ending in a backslash.
    const env = stages.at(-1)!.match(/^ENV ((?:.*\\\n)*.*)$/m)![1]!
    expect(env).toContain(`NODE_OPTIONS="${HEAP_OPTIONS}"`)
    for (const [name, value] of Object.entries(MALLOC_ENV))
      expect(env.split(/\s+/)).toContain(`${name}=${value}`)
  })
})
