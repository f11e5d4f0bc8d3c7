import { writeFileSync } from 'node:fs'
import { launchChromium } from '@roost/testing'
import type { Target } from './targets'

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * The results as a chart: one bar per target (bench/targets.ts: issue #38's, and two of issue #14's), its length
 * the measured figure relative to the target (the line at 1 is the target), green when met and red when not, the
 * figure written beside it with the committed run's ("today"). Drawn as SVG and rendered to PNG with the Chromium
 * the browser tests use (playwright-core); the SVG is written next to it.
 */
export async function renderChart(results: Record<string, unknown>, file: string, targets: Target[]) {
  targets = targets.filter((t) => t.measured !== undefined)
  const width = 1250
  const rowHeight = 44
  const top = 70
  const left = 520
  const barMax = 400
  const height = top + targets.length * rowHeight + 50
  const scale = (t: (typeof targets)[number]) => {
    // How far along the target the figure is: for "at most" targets, target / measured (beyond 1 = better).
    const v = t.kind === 'max' ? t.target / Math.max(t.measured!, 1e-9) : t.measured! / t.target
    return Math.min(v, 2)
  }
  const rows = targets
    .map((t, i) => {
      const y = top + i * rowHeight
      const w = Math.max(2, (scale(t) / 2) * barMax)
      const colour = t.met ? '#2e8b57' : '#c0392b'
      const today = t.today === undefined ? '' : `; today ${t.today}${t.unit}`
      const figure = `${t.measured}${t.unit} (target ${t.kind === 'max' ? '≤' : '≥'} ${t.target}${t.unit}${today})`
      return `<text x="${left - 12}" y="${y + 22}" text-anchor="end" font-size="14">${escape(t.name)}</text>
<rect x="${left}" y="${y + 8}" width="${w}" height="22" fill="${colour}" rx="3"/>
<text x="${left + Math.min(w, barMax) + 8}" y="${y + 24}" font-size="13" fill="#333">${escape(figure)}</text>`
    })
    .join('\n')
  const machine = results.machine as { cpus: number; loadAverageAtStart: number[] }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans, Arial, sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="20" y="32" font-size="20" font-weight="bold">Roost, npm run bench — ${escape(String(results.date).slice(0, 16).replace('T', ' '))} UTC</text>
<text x="20" y="54" font-size="13" fill="#555">${machine.cpus} cores, everything on one box, load average ${machine.loadAverageAtStart.join(' ')} at start. Bar = figure relative to its target (line = target met exactly).</text>
<line x1="${left + barMax / 2}" y1="${top}" x2="${left + barMax / 2}" y2="${height - 40}" stroke="#888" stroke-dasharray="4 3"/>
<text x="${left + barMax / 2}" y="${height - 22}" text-anchor="middle" font-size="12" fill="#555">target</text>
${rows}
</svg>`
  writeFileSync(file.replace(/\.png$/, '.svg'), svg)
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width, height } })
    await page.setContent(`<html><body style="margin:0">${svg}</body></html>`)
    await page.screenshot({ path: file, clip: { x: 0, y: 0, width, height } })
  } finally {
    await browser.close()
  }
}
