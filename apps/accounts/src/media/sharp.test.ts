import sharp from './sharp'

it("leaves libvips' operation cache off: no decoded image is kept after its request", async () => {
  const image = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#369' } })
    .png()
    .toBuffer()
  await sharp(image).resize(16, 16).toBuffer()
  expect(sharp.cache()).toMatchObject({ memory: { current: 0, max: 0 }, items: { current: 0, max: 0 } })
})
