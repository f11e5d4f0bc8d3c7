#!/usr/bin/env node
// The configuration table of docs/operations.md, generated from .env.example (itself checked against every zod config
// schema by test/env-example.test.ts), so the two can never disagree. `node scripts/config-reference.mjs --write`
// rewrites the table between the markers in docs/operations.md; without --write it prints it.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import path from 'node:path'

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
export const START =
  '<!-- config-reference:start (generated from .env.example by scripts/config-reference.mjs) -->'
export const END = '<!-- config-reference:end -->'

export function configReference(envExample) {
  const rows = ['| variable | default | meaning |', '|---|---|---|']
  let comment = ''
  for (const line of envExample.split('\n')) {
    const section = line.match(/^# --- (.+?) ---$/)
    if (section) rows.push(`| **${section[1]}** | | |`)
    else if (line.startsWith('# ')) comment = line.slice(2)
    else {
      const variable = line.match(/^([A-Z][A-Z0-9_]*)=(.*)$/)
      if (variable) {
        const value = variable[2] ? `\`${variable[2]}\`` : '—'
        rows.push(`| \`${variable[1]}\` | ${value} | ${comment.replace(/\|/g, '\\|')} |`)
      }
      comment = ''
    }
  }
  return rows.join('\n')
}

export function readmeWithReference(readme, envExample) {
  const start = readme.indexOf(START)
  const end = readme.indexOf(END)
  if (start < 0 || end < start) throw new Error(`docs/operations.md lacks the markers ${START} … ${END}`)
  return `${readme.slice(0, start + START.length)}\n${configReference(envExample)}\n${readme.slice(end)}`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const envExample = readFileSync(path.join(root, '.env.example'), 'utf8')
  if (process.argv.includes('--write')) {
    const file = path.join(root, 'docs/operations.md')
    writeFileSync(file, readmeWithReference(readFileSync(file, 'utf8'), envExample))
  } else console.log(configReference(envExample))
}
