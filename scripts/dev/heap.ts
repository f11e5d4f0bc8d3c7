/**
 * The V8 heap of every process, as in the image (Dockerfile): with no limit set, V8 sizes the heap from the
 * machine's memory and lets garbage pile up to hundreds of MB before collecting it; with a limit the same load
 * stays near its live data (docs/performance.md, "Memory"). `npm start` puts it in each process's NODE_OPTIONS,
 * before the environment's own NODE_OPTIONS, so an operator's own limits win; the bench's bare proxy runs with it
 * too, so that its CPU is measured as the gateway's is.
 */
export const HEAP_OPTIONS = '--max-old-space-size=256 --max-semi-space-size=4'

/**
 * glibc's malloc, for the native memory of every process (docs/performance.md, "Memory"). libvips (sharp) decodes
 * images on threads of its own, in buffers of megabytes: by default glibc gives each thread an arena of its own (up
 * to eight per core), and after a large block is freed it raises the size from which blocks are mapped on their
 * own, so that the next ones land in the arenas, which keep what was freed. With the defaults the accounts service
 * held over 500 MB after twenty phone photos; with at most two arenas and every block of 1 MB or more mapped on its
 * own (and so given back to the system when freed), it peaks near 270 MB and falls back to about 170 MB, for about
 * a tenth more CPU per image. `npm start` sets them for each process unless the environment does; the image sets
 * them too (Dockerfile).
 */
export const MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '1048576' }
