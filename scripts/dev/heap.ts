/**
 * The V8 heap of every process, as in the image (Dockerfile): with no limit set, V8 sizes the heap from the
 * machine's memory and lets garbage pile up to hundreds of MB before collecting it; with a limit the same load
 * stays near its live data (docs/performance.md, "Memory"). `npm start` puts it in each process's NODE_OPTIONS,
 * before the environment's own NODE_OPTIONS, so an operator's own limits win; the bench's bare proxy runs with it
 * too, so that its CPU is measured as the gateway's is.
 */
export const HEAP_OPTIONS = '--max-old-space-size=256 --max-semi-space-size=4'

/**
 * glibc's malloc arenas, at most two per process (by default up to eight per core). libvips (sharp) decodes images on
 * threads of its own, and each arena keeps what its threads freed: with the default the accounts service held over
 * 500 MB after twenty phone photos, with two about 330 MB at the peak (docs/performance.md, "Memory"). `npm start`
 * sets it for each process unless the environment does; the image sets it too (Dockerfile).
 */
export const MALLOC_ARENA_MAX = '2'
