import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmdirSync, statSync } from 'node:fs';
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

/** Runs `build` under the lock directory `lock` unless `fresh()`, waiting for another worker's build. */
function buildOnce(lock: string, fresh: () => boolean, build: () => void, what: string): void {
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

/** The executable's path, built first if need be (about 5 s). */
export function ensureBinary(): string {
  buildOnce(LOCK, fresh, () => execFileSync(process.execPath, [join(ROOT, 'scripts/build-binary.js')], { cwd: ROOT, stdio: 'pipe', timeout: 170_000 }), BINARY);
  return BINARY;
}

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
/** The image's tag (`npm run build:image`). */
export const IMAGE = `payout-sandbox:${version}`;
/** Which build of the executable the image was last built from (its mtime): written by scripts/build-image.js. */
const IMAGE_STAMP = join(ROOT, 'dist/image-built-from');

/**
 * The container image's tag, built first (from a fresh executable) when the image is missing or
 * older than the executable: one build per test run however many test files need it. Needs
 * podman or docker (scripts/container-engine.js).
 */
export function ensureImage(engine: string): string {
  const binary = ensureBinary();
  const from = String(statSync(binary).mtimeMs);
  const imageFresh = () => {
    let stamp = '';
    try {
      stamp = readFileSync(IMAGE_STAMP, 'utf8');
    } catch {
      return false;
    }
    return stamp === from && spawnSync(engine, ['image', 'inspect', IMAGE], { stdio: 'ignore' }).status === 0;
  };
  buildOnce(
    join(ROOT, 'dist/.build-image.lock'),
    imageFresh,
    () => execFileSync(process.execPath, [join(ROOT, 'scripts/build-image.js')], { cwd: ROOT, stdio: 'pipe', timeout: 230_000 }),
    IMAGE,
  );
  return IMAGE;
}
