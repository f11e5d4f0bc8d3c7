/**
 * The V8 heap of every process, as in the image (Dockerfile): with no limit set, V8 sizes the heap from the
 * machine's memory and lets garbage pile up to hundreds of MB before collecting it; with a limit the same load
 * stays near its live data (docs/performance.md, "Memory"). `npm start` puts it in each process's NODE_OPTIONS,
 * before the environment's own NODE_OPTIONS, so an operator's own limits win; the bench's bare proxy runs with it
 * too, so that its CPU is measured as the gateway's is.
 */
export const HEAP_OPTIONS = '--max-old-space-size=256 --max-semi-space-size=4'
