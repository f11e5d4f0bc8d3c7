import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import sharp from './sharp'

it("leaves libvips' operation cache off: no decoded image is kept after its request", async () => {
  const image = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#369' } })
    .png()
    .toBuffer()
  await sharp(image).resize(16, 16).toBuffer()
  expect(sharp.cache()).toMatchObject({ memory: { current: 0, max: 0 }, items: { current: 0, max: 0 } })
})

it('is where the app takes sharp from: no other source file imports the package', () => {
  const src = path.resolve(__dirname, '..')
  const importers = (readdirSync(src, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .filter((file) => /from 'sharp'/.test(readFileSync(path.join(src, file), 'utf8')))
  expect(importers).toEqual([path.join('media', 'sharp.ts')])
})
