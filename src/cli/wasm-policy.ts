/**
 * The CLI's WebAssembly policy. undici parses HTTP with llhttp compiled to WebAssembly: V8 compiles
 * it with Liftoff, its baseline compiler, then recompiles the hot parser function with TurboFan in
 * the background. That recompilation takes ~35 MiB of compiler memory (`peak_malloced_memory`
 * 5 → 40 MiB after a few thousand answers). It is freed at once, but glibc's allocator keeps the
 * pages, so it stayed in the process's RSS for the rest of the run: the largest single piece of a
 * patch-tuesday apply's peak, and of an update's. Liftoff's code parses the same answers at the
 * same pace here (docs/performance.md, "patch-tuesday", sixteenth session).
 *
 * A V8 flag read when a module is compiled, so on Node 20 setting it at run time works, before
 * undici compiles llhttp (its first request). Node 24's V8 ignores it at run time (measured: 37 MiB
 * either way); there only the command line sets it, as the container image's entrypoint does
 * (Dockerfile; 37 → 17 MiB). It cannot go in the bin's shebang: that line is at the 127 bytes older
 * kernels read of it, so an npm-installed bin on Node 24 runs without it.
 */
import { setFlagsFromString } from 'node:v8';

export function baselineWasmOnly(): void {
  setFlagsFromString('--liftoff-only');
}
