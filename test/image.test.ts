import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a build script, plain JavaScript with no types.
import { containerEngine } from '../scripts/container-engine.js';
import { ensureImage } from './binary-helpers.js';

/**
 * The container image: built offline from the standalone executable (npm run build:image), under
 * 160 MiB, then `npm run test:image`'s script: refused without a token, healthy on a published
 * port, HEALTHCHECK passing, a payout with its webhook to this host, a clean stop; under another
 * uid (`--user`), with bind mounts and with its own volume. In CI (CI=true) it always runs:
 * without podman or docker it fails (.ci/run installs podman and runc); elsewhere, without
 * either, only the build's refusal is tested, and it says so.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const engine = containerEngine() as { cmd: string } | null;
const inCi = process.env.CI === 'true' || process.env.CI === '1';

function node(script: string, timeout: number) {
  const r = spawnSync(process.execPath, [join(ROOT, script)], { cwd: ROOT, encoding: 'utf8', timeout });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

test('without podman or docker, the image build says what to install and exits 1, with no stack trace', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build-image.js')], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, PAYOUT_SANDBOX_ENGINE: 'none' },
  });
  expect({ code: r.status, err: r.stderr }).toEqual({
    code: 1,
    err: 'payout-sandbox image: neither podman nor docker is available: install one (Debian: apt-get install podman runc)\n',
  });
});

// The image itself needs podman or docker: in CI always (.ci/run installs podman and runc; without
// them this fails), elsewhere when one is installed.
if (engine === null && !inCi) {
  process.stderr.write(
    'test/image.test.ts: the image itself is not built here: neither podman nor docker is installed (Debian: apt-get install podman runc). In CI it is.\n',
  );
} else {
  test('the image builds offline from the executable, is under 160 MiB, and passes npm run test:image', () => {
    expect(engine).not.toBeNull();
    // Built once per run, under a lock, for every test file that needs it (the Java example's too).
    const image = ensureImage(engine!.cmd);
    const size = spawnSync(engine!.cmd, ['image', 'inspect', '--format', '{{.Size}}', image], { encoding: 'utf8' });
    expect(size.status).toBe(0);
    expect(Number(size.stdout.trim()) / 2 ** 20).toBeLessThan(160);
    const tested = node('scripts/test-image.js', 240_000);
    process.stdout.write(tested.out);
    expect({ code: tested.code, out: tested.out }).toEqual({ code: 0, out: expect.stringContaining('image test passed') });
    expect(tested.out).toContain('without a token: exit 2, naming SANDBOX_ADMIN_TOKEN and SANDBOX_INSECURE_OPEN_CONTROL=1');
    expect(tested.out).toMatch(/its signed webhook reached http:\/\/host\.(containers|docker)\.internal:\d+\/hooks/);
    // Under a uid of the user's choosing (--user): refused at start where it cannot write; else its files, owned by that uid.
    expect(tested.out).toMatch(/--user \d+:\d+, a report directory it cannot write: exit 2 at start, naming \/out\/review\.md, with the --user hint/);
    expect(tested.out).toMatch(
      /--user \d+:\d+ with \/data and \/out bind-mounted: the payout in data\/db\.json, review\.md and coverage\.xml written, all owned by uid \d+/,
    );
    expect(tested.out).toContain("--user 23456:23456 on the image's own /data volume: healthy, stopped with exit 0");
  }, 500_000);
}
