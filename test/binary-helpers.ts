import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a build script, plain JavaScript with no types.
import * as shared from '../scripts/build-once.js';

/**
 * The standalone executable and the container image for the tests that need them: built once
 * (scripts/build-once.js: when missing or older than what they are made of, under a lock shared
 * with the other Jest workers and bench/fleet.js), reused otherwise.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BINARY: string = shared.BINARY;
const buildOnce: (lock: string, fresh: () => boolean, build: () => void, what: string) => void = shared.buildOnce;

/** The executable's path, built first if need be (about 5 s). */
export function ensureBinary(): string {
  return shared.ensureBinary('pipe');
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
