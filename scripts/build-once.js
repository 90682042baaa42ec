// The standalone executable for whoever needs it built and current: the tests of the executable,
// the image and the recipes (test/binary-helpers.ts) and the fleet benchmark (bench/fleet.js).
// Built by scripts/build-binary.js when missing or older than what it is made of (the output of
// `npm run build`, the shipped files, the build script), reused otherwise; a lock directory keeps
// two processes (Jest workers, a benchmark) from building it at once.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BINARY = join(ROOT, `dist/payout-sandbox-${process.platform}-${process.arch}`);
const LOCK = join(ROOT, 'dist/.build-binary.lock');

const mtime = (file) => statSync(join(ROOT, file), { throwIfNoEntry: false })?.mtimeMs ?? Number.POSITIVE_INFINITY;

/** Whether the executable is there and no older than any of its inputs. */
function binaryFresh() {
  const inputs = [
    'dist/cli.bundle.js',
    'dist/verified-files.json',
    'dist/ui/index.html',
    'scripts/build-binary.js',
    'package.json',
    ...['fixtures', 'scenarios'].flatMap((dir) => readdirSync(join(ROOT, dir)).map((f) => `${dir}/${f}`)),
  ];
  const built = statSync(BINARY, { throwIfNoEntry: false })?.mtimeMs;
  return built !== undefined && inputs.every((f) => mtime(f) <= built);
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Runs `build` under the lock directory `lock` unless `fresh()`, waiting for another process's build. */
export function buildOnce(lock, fresh, build, what) {
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (fresh()) return;
    try {
      mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) rmdirSync(lock);
      if (Date.now() > deadline) throw new Error(`another build of ${what} holds ${lock}`);
      sleep(200);
    }
  }
  try {
    if (!fresh()) build();
  } finally {
    rmdirSync(lock);
  }
}

/** The executable's path, built first if need be (about 5 s); `stdio` of the build ('pipe' in tests, 'inherit' in a benchmark). */
export function ensureBinary(stdio = 'pipe') {
  if (mtime('dist/cli.bundle.js') === Number.POSITIVE_INFINITY) throw new Error('dist/cli.bundle.js is missing: run npm run build first.');
  buildOnce(LOCK, binaryFresh, () => execFileSync(process.execPath, [join(ROOT, 'scripts/build-binary.js')], { cwd: ROOT, stdio, timeout: 170_000 }), BINARY);
  return BINARY;
}
