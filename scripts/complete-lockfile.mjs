// The registry mirror does not serve some optional platform packages (other OSes' binaries of swc, turbo,
// jest's resolver), so npm leaves them out of the lock and `npm ci` then refuses it as out of sync. This adds a
// placeholder entry for each, marked for no platform so it is never fetched. Runs after every `npm install`.
// Adds lock entries for optional platform packages the registry mirror does not serve, so `npm ci` accepts the lock.
import { readFileSync, writeFileSync } from 'node:fs'
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'))
const pkgs = lock.packages
let added = 0
for (const [path, meta] of Object.entries(pkgs)) {
  for (const [name, range] of Object.entries(meta.optionalDependencies ?? {})) {
    const base = path ? `${path}/node_modules/${name}` : `node_modules/${name}`
    const top = `node_modules/${name}`
    if (pkgs[base] || pkgs[top]) continue
    pkgs[top] = { version: String(range).replace(/^[\^~]/, ''), optional: true, os: ['none'], cpu: ['none'] }
    added++
  }
}
writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n')
if (added) console.log(`complete-lockfile: added ${added} placeholder entries`)
