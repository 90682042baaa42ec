import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The standalone executable for the tests that need it (test/binary.test.ts, test/image.test.ts):
 * built once by `node scripts/build-binary.js` when missing or older than what it is made of (the
 * build output of `npm run build`, the shipped files, the build script), reused otherwise. A lock
 * directory keeps two Jest workers from building it at once.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BINARY = join(ROOT, `dist/payout-sandbox-${process.platform}-${process.arch}`);
const INPUTS = [
  'dist/cli.bundle.js',
  'dist/verified-files.json',
  'dist/ui/index.html',
  'scripts/build-binary.js',
  'package.json',
  ...['fixtures', 'scenarios'].flatMap((dir) => readdirSync(join(ROOT, dir)).map((f) => `${dir}/${f}`)),
];
const LOCK = join(ROOT, 'dist/.build-binary.lock');

const mtime = (file: string) => statSync(join(ROOT, file), { throwIfNoEntry: false })?.mtimeMs ?? Number.POSITIVE_INFINITY;

function fresh(): boolean {
  const built = statSync(BINARY, { throwIfNoEntry: false })?.mtimeMs;
  return built !== undefined && INPUTS.every((f) => mtime(f) <= built);
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The executable's path, built first if need be (about 5 s). */
export function ensureBinary(): string {
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (fresh()) return BINARY;
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) rmdirSync(LOCK);
      if (Date.now() > deadline) throw new Error(`another build of ${BINARY} holds ${LOCK}`);
      sleep(200);
    }
  }
  try {
    if (!fresh()) execFileSync(process.execPath, [join(ROOT, 'scripts/build-binary.js')], { cwd: ROOT, stdio: 'pipe', timeout: 170_000 });
  } finally {
    rmdirSync(LOCK);
  }
  return BINARY;
}
