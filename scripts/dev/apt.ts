import { spawnSync } from 'node:child_process'

/** The path of `command` on PATH, or undefined. */
export const which = (command: string) =>
  spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).stdout.trim() || undefined

/**
 * Installs Debian's `pkg` when we may (root, with apt-get), saying so; false when we may not. The caller checks
 * that what it needs is there afterwards, and otherwise says how to install it.
 */
export function installDebianPackage(pkg: string): boolean {
  if (process.getuid?.() !== 0 || !which('apt-get')) return false
  console.log(`${pkg} is missing: installing Debian's ${pkg} package…`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
  spawnSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'inherit', env })
  return true
}
