import sharp from 'sharp'

/**
 * sharp (libvips) as Roost uses it: every image is decoded once and never again, so libvips' cache of recent
 * operations (50 MB by default) only holds memory (docs/performance.md, "Memory"). Media code imports sharp from
 * here, never from the package, so that this holds before the first image.
 */
sharp.cache(false)

export default sharp
export type { Sharp } from 'sharp'
