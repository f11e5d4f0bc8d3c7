import { useEffect, useRef } from 'preact/hooks'

/**
 * An avatar or header chosen with its focal point (docs/architecture.md, "The web app"). Mastodon's
 * update_credentials takes no focal point for them and crops around the centre, so the page crops instead: it shows
 * the image with the part that will be kept, the person places the point by clicking the image or with the arrow
 * keys on its two sliders, and the crop around that point, at Mastodon's size, is what is uploaded.
 */

/** Mastodon's sizes (its Account avatar `400x400#` and header `1500x500#` styles). */
export const SHAPES = {
  avatar: { width: 400, height: 400, name: 'square' },
  header: { width: 1500, height: 500, name: 'three times as wide as high' },
} as const
export type Shape = keyof typeof SHAPES

/** A chosen image and its focal point, as fractions of its width and height from the top left. */
export interface FocalImage {
  image: HTMLImageElement
  file: File
  x: number
  y: number
}

/**
 * A GIF may be animated, and a canvas keeps only its first frame: it goes up as it is, and the server crops it
 * around the centre, its frames kept (docs/media.md, "Images").
 */
const keptWhole = (f: FocalImage) => f.file.type === 'image/gif'

const clamp = (v: number, low: number, high: number) => Math.min(Math.max(v, low), high)

/** The largest part of a w×h image with the shape's proportions, centred on the focal point as far as it can be. */
export function cropRect(w: number, h: number, shape: Shape, x: number, y: number) {
  const ratio = SHAPES[shape].width / SHAPES[shape].height
  const width = Math.min(w, h * ratio)
  const height = width / ratio
  return {
    left: clamp(x * w - width / 2, 0, w - width),
    top: clamp(y * h - height / 2, 0, h - height),
    width,
    height,
  }
}

function drawCrop(canvas: HTMLCanvasElement, f: FocalImage, shape: Shape) {
  const r = cropRect(f.image.naturalWidth, f.image.naturalHeight, shape, f.x, f.y)
  canvas
    .getContext('2d')!
    .drawImage(f.image, r.left, r.top, r.width, r.height, 0, 0, canvas.width, canvas.height)
}

/** The file to upload: the crop at Mastodon's size, in the image's own format (PNG for other than JPEG or WebP). */
export async function croppedFile(f: FocalImage, shape: Shape): Promise<File> {
  if (keptWhole(f)) return f.file
  const canvas = document.createElement('canvas')
  canvas.width = SHAPES[shape].width
  canvas.height = SHAPES[shape].height
  drawCrop(canvas, f, shape)
  const type = ['image/jpeg', 'image/webp'].includes(f.file.type) ? f.file.type : 'image/png'
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, type, 0.92))
  if (!blob) throw new Error('This image could not be cropped: choose another one.')
  return new File([blob], `${f.file.name.replace(/\.[^.]*$/, '')}.${type.split('/')[1]}`, { type })
}

const loadImage = (file: File) =>
  new Promise<HTMLImageElement>((resolve, reject) => {
    const image = new Image()
    image.onload = () => resolve(image)
    image.onerror = () => reject(new Error('This file is not an image the browser can read.'))
    image.src = URL.createObjectURL(file)
  })

/** Where the whole image is drawn for placing the point: at most this wide (it is scaled down by its style). */
const SOURCE_WIDTH = 720

export function FocalImageField(props: {
  shape: Shape
  label: string
  current: string
  value?: FocalImage
  onChange: (value: FocalImage | undefined) => void
  onError: (message: string | undefined) => void
}) {
  const { shape, label, value, onChange } = props
  const id = `${shape}-file`
  const whole = useRef<HTMLCanvasElement>(null)
  const preview = useRef<HTMLCanvasElement>(null)
  useEffect(() => {
    if (!value || !preview.current) return
    drawCrop(preview.current, value, shape)
    if (!whole.current) return
    // The whole image, the part left out dimmed, and the point.
    const canvas = whole.current
    const scale = canvas.width / value.image.naturalWidth
    const g = canvas.getContext('2d')!
    g.drawImage(value.image, 0, 0, canvas.width, canvas.height)
    const r = cropRect(value.image.naturalWidth, value.image.naturalHeight, shape, value.x, value.y)
    g.fillStyle = 'rgba(0, 0, 0, 0.55)'
    g.beginPath()
    g.rect(0, 0, canvas.width, canvas.height)
    g.rect(r.left * scale, r.top * scale, r.width * scale, r.height * scale)
    g.fill('evenodd')
    const [px, py] = [value.x * canvas.width, value.y * canvas.height]
    g.lineWidth = 3
    for (const [colour, radius] of [
      ['#fff', 12],
      ['#563acc', 9],
    ] as const) {
      g.strokeStyle = colour
      g.beginPath()
      g.arc(px, py, radius, 0, 2 * Math.PI)
      g.stroke()
    }
  }, [value])
  const pick = async (file: File | undefined) => {
    props.onError(undefined)
    if (value) URL.revokeObjectURL(value.image.src)
    if (!file) return onChange(undefined)
    try {
      onChange({ image: await loadImage(file), file, x: 0.5, y: 0.5 })
    } catch (e) {
      props.onError((e as Error).message)
      onChange(undefined)
    }
  }
  const move = (x: number, y: number) => value && onChange({ ...value, x: clamp(x, 0, 1), y: clamp(y, 0, 1) })
  const percent = (v: number) => Math.round(v * 100)
  const width = value ? Math.min(SOURCE_WIDTH, value.image.naturalWidth) : 0
  return (
    <div class="field image-field">
      <label for={id}>{label}</label>
      {value ? (
        <canvas
          ref={preview}
          class={`${shape}-preview`}
          width={SHAPES[shape].width}
          height={SHAPES[shape].height}
          role="img"
          aria-label={`Your new ${label.toLowerCase()}, as it will be shown`}
        />
      ) : (
        <img class={`${shape}-preview`} src={props.current} alt={`Your ${label.toLowerCase()}`} />
      )}
      <input
        id={id}
        type="file"
        accept="image/png,image/jpeg,image/gif,image/webp"
        onChange={(e) => void pick((e.target as HTMLInputElement).files?.[0])}
      />
      {value && keptWhole(value) ? (
        <p class="hint">A GIF is uploaded as it is, its animation kept, and cropped around its centre.</p>
      ) : value ? (
        <fieldset class="focal">
          <legend>Focal point of the {label.toLowerCase()}</legend>
          <p class="hint">
            The {label.toLowerCase()} is {SHAPES[shape].name}: the brighter part of the picture is kept. Click
            the picture where it should be centred, or move the point with the arrow keys on the sliders.
          </p>
          <canvas
            ref={whole}
            class="focal-source"
            width={width}
            height={value ? Math.round((width * value.image.naturalHeight) / value.image.naturalWidth) : 0}
            role="img"
            aria-label={`The chosen image, its focal point at ${percent(value.x)}% from the left and ${percent(value.y)}% from the top`}
            onClick={(e) => {
              const box = (e.target as HTMLCanvasElement).getBoundingClientRect()
              move((e.clientX - box.left) / box.width, (e.clientY - box.top) / box.height)
            }}
          />
          <div class="pair">
            <Slider
              label={`${label} focal point, from the left (%)`}
              value={percent(value.x)}
              onInput={(v) => move(v / 100, value.y)}
            />
            <Slider
              label={`${label} focal point, from the top (%)`}
              value={percent(value.y)}
              onInput={(v) => move(value.x, v / 100)}
            />
          </div>
        </fieldset>
      ) : null}
    </div>
  )
}

function Slider(props: { label: string; value: number; onInput: (v: number) => void }) {
  const id = `slider-${props.label.replace(/\W+/g, '-').toLowerCase()}`
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        type="range"
        min={0}
        max={100}
        step={1}
        value={props.value}
        onInput={(e) => props.onInput(Number((e.target as HTMLInputElement).value))}
      />
    </div>
  )
}
