import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a build script, plain JavaScript with no types.
import { containerEngine } from '../scripts/container-engine.js';
import { ensureBinary, ensureImage } from './binary-helpers.js';

/**
 * `npm run release` (scripts/release.js), after the executable and the image are built once per
 * run (ensureImage, under its lock: never two image builds at once), with --no-build into a
 * temporary directory: every file the manifest lists has its size and SHA-256, `sha256sum -c`
 * passes on the executable's .sha256 and on SHA256SUMS, the image is an OCI archive, the npm
 * tarball a package, the schemas JSON; the executable runs from there. With the image in CI
 * (CI=true; without podman or docker it fails), elsewhere when an engine is installed, else with
 * --no-image, and it says so.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const engine = containerEngine() as { cmd: string } | null;
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const withImage = engine !== null || inCi;
const EXECUTABLE = `payout-sandbox-${process.platform}-${process.arch}`;

if (!withImage) {
  process.stderr.write(
    'test/release.test.ts: the release is made with --no-image here: neither podman nor docker is installed (Debian: apt-get install podman runc). In CI it has the image.\n',
  );
}

interface Manifest {
  name: string;
  version: string;
  commit: string | null;
  created: string;
  node: string;
  platform: string;
  image: { included: boolean; tag?: string; file?: string; reason?: string };
  files: { name: string; kind: string; size: number; sha256: string }[];
}

let out = '';
let release: { code: number | null; stdout: string; stderr: string; ms: number };
const running = new Set<ChildProcess>();

function releaseScript(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const started = Date.now();
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/release.js'), ...args], { cwd: ROOT, encoding: 'utf8', env, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const manifest = () => JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Manifest;

beforeAll(() => {
  if (withImage) {
    if (engine === null) throw new Error('CI=true: the release must hold the image, and neither podman nor docker is installed (apt-get install podman runc)');
    ensureImage(engine.cmd);
  } else {
    ensureBinary();
  }
  out = mkdtempSync(join(tmpdir(), 'payout-sandbox-release-'));
  release = releaseScript(['--no-build', '--out', out, ...(withImage ? [] : ['--no-image'])]);
}, 400_000);

afterAll(() => {
  for (const p of running) p.kill('SIGKILL');
  if (out) rmSync(out, { recursive: true, force: true });
});

test('release.js --no-build exits 0 with a one-line summary and writes the manifest and SHA256SUMS of every file', () => {
  expect({ code: release.code, stderr: release.stderr }).toEqual({ code: 0, stderr: '' });
  process.stdout.write(`release.js --no-build: ${release.ms} ms: ${release.stdout}`);
  expect(release.stdout.split('\n')).toHaveLength(2);
  expect(release.stdout).toMatch(
    new RegExp(`^payout-sandbox ${pkg.version} release in .+: ${withImage ? 8 : 7} files, [\\d.]+ MiB \\(.*\\), in [\\d.]+ s\\n$`),
  );
  const m = manifest();
  expect(m).toMatchObject({ name: pkg.name, version: pkg.version, platform: `${process.platform}-${process.arch}`, node: process.version });
  expect(m.commit).toMatch(/^[0-9a-f]{40}$/);
  expect(Math.abs(Date.parse(m.created) - Date.now())).toBeLessThan(300_000);
  const kinds = m.files.map((f) => [f.name, f.kind]);
  expect(kinds).toEqual([
    [EXECUTABLE, 'executable'],
    [`${EXECUTABLE}.sha256`, 'checksum'],
    ...(withImage ? [[`payout-sandbox-${pkg.version}.oci.tar`, 'image']] : []),
    [`payout-sandbox-${pkg.version}.tgz`, 'npm'],
    ['scenario.schema.json', 'schema'],
    ['fixtures.schema.json', 'schema'],
  ]);
  for (const f of m.files) {
    expect({ name: f.name, size: statSync(join(out, f.name)).size, sha256: sha256(join(out, f.name)) }).toEqual({
      name: f.name,
      size: f.size,
      sha256: f.sha256,
    });
  }
  // Nothing else in the directory: every file is in the manifest, and SHA256SUMS names them all and the manifest.
  expect(readdirSync(out).sort()).toEqual([...m.files.map((f) => f.name), 'manifest.json', 'SHA256SUMS'].sort());
  const sums = readFileSync(join(out, 'SHA256SUMS'), 'utf8');
  expect(
    sums
      .trimEnd()
      .split('\n')
      .map((l) => l.split('  ')[1]),
  ).toEqual([...m.files.map((f) => f.name), 'manifest.json']);
  expect(statSync(join(out, EXECUTABLE)).mode & 0o777).toBe(0o755);
});

test('sha256sum -c passes on the executable .sha256 and on SHA256SUMS, in the release directory', () => {
  expect(readFileSync(join(out, `${EXECUTABLE}.sha256`), 'utf8')).toMatch(new RegExp(`^[0-9a-f]{64}  ${EXECUTABLE}\\n$`));
  for (const sums of [`${EXECUTABLE}.sha256`, 'SHA256SUMS']) {
    const r = spawnSync('sha256sum', ['-c', sums], { cwd: out, encoding: 'utf8' });
    expect({ sums, code: r.status, err: r.stderr }).toEqual({ sums, code: 0, err: '' });
    expect(r.stdout).toContain(`${EXECUTABLE}: OK`);
  }
});

if (withImage) {
  test('the image is an OCI archive: a tar with oci-layout and index.json naming payout-sandbox:<version>', () => {
    const m = manifest();
    expect(m.image).toMatchObject({ included: true, tag: `payout-sandbox:${pkg.version}`, file: `payout-sandbox-${pkg.version}.oci.tar` });
    const archive = join(out, `payout-sandbox-${pkg.version}.oci.tar`);
    const list = spawnSync('tar', ['tf', archive], { encoding: 'utf8' });
    expect(list.status).toBe(0);
    expect(list.stdout.split('\n')).toEqual(expect.arrayContaining(['oci-layout', 'index.json']));
    const index = JSON.parse(spawnSync('tar', ['xOf', archive, 'index.json'], { encoding: 'utf8' }).stdout);
    expect(JSON.stringify(index.manifests)).toContain(`payout-sandbox:${pkg.version}`);
  });
} else {
  test('--no-image: no image in the release, and the manifest and the summary say so', () => {
    expect(manifest().image).toEqual({ included: false, reason: expect.stringContaining('--no-image') });
    expect(release.stdout).toContain('no container image (--no-image)');
    expect(readdirSync(out).filter((f) => f.endsWith('.oci.tar'))).toEqual([]);
  });
}

test('the npm tarball is the package; the schemas are JSON with their $id', () => {
  const tarball = join(out, `payout-sandbox-${pkg.version}.tgz`);
  const list = spawnSync('tar', ['tzf', tarball], { encoding: 'utf8', maxBuffer: 16 * 2 ** 20 });
  expect(list.status).toBe(0);
  const files = list.stdout.split('\n');
  expect(files).toEqual(expect.arrayContaining(['package/package.json', 'package/bin/payout-sandbox.js', 'package/dist/cli.bundle.js']));
  expect(files.filter((f) => f.startsWith(`package/dist/payout-sandbox-`))).toEqual([]);
  expect(JSON.parse(spawnSync('tar', ['xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }).stdout).version).toBe(pkg.version);
  expect(JSON.parse(readFileSync(join(out, 'scenario.schema.json'), 'utf8')).$id).toBe('urn:payout-sandbox:schema:scenario:v1');
  expect(JSON.parse(readFileSync(join(out, 'fixtures.schema.json'), 'utf8')).$id).toBe('urn:payout-sandbox:schema:fixtures:v1');
  expect(readFileSync(join(out, 'scenario.schema.json'))).toEqual(readFileSync(join(ROOT, 'schemas/scenario.schema.json')));
});

test('the executable runs from the release directory: --version, a start that is healthy, SIGTERM → exit 0', async () => {
  const exe = join(out, EXECUTABLE);
  const before = readdirSync(out).sort();
  const version = spawnSync(`./${EXECUTABLE}`, ['--version'], { cwd: out, env: {}, encoding: 'utf8', timeout: 15_000 });
  expect({ code: version.status, out: version.stdout.trim() }).toEqual({ code: 0, out: pkg.version });

  const readyFile = join(tmpdir(), `payout-sandbox-release-ready-${process.pid}.json`);
  const proc = spawn(`./${EXECUTABLE}`, ['--port', '0', '--data', 'memory', '--ready-file', readyFile], {
    cwd: out,
    env: {},
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  let log = '';
  proc.stdout!.on('data', (d) => (log += d));
  proc.stderr!.on('data', (d) => (log += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 15_000;
  while (!existsSync(readyFile)) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`not ready: exit ${proc.exitCode}\n${log}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const ready = JSON.parse(readFileSync(readyFile, 'utf8')) as { url: string; pid: number };
  expect(ready.pid).toBe(proc.pid);
  expect(realpathSync(`/proc/${proc.pid}/exe`)).toBe(realpathSync(exe));
  const health = await fetch(`${ready.url}/__sandbox/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ ok: true, version: pkg.version });
  proc.kill('SIGTERM');
  expect(await exited).toBe(0);
  running.delete(proc);
  expect(existsSync(readyFile)).toBe(false);
  // It wrote nothing beside itself.
  expect(readdirSync(out).sort()).toEqual(before);
});

test('refusals: no engine without --no-image (exit 1, what to install), an unknown option (exit 2); nothing touched', () => {
  const stale = join(out, 'payout-sandbox-0.0.1.oci.tar');
  writeFileSync(stale, 'an older release');
  const none = releaseScript(['--no-build', '--out', out], { ...process.env, PAYOUT_SANDBOX_ENGINE: 'none' });
  expect({ code: none.code, stdout: none.stdout }).toEqual({ code: 1, stdout: '' });
  expect(none.stderr).toBe(
    'payout-sandbox release: neither podman nor docker is available to save the container image: install one (Debian: apt-get install podman runc), or pass --no-image for a release without the image\n',
  );
  const unknown = releaseScript(['--no-biuld', '--out', out]);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toMatch(/^payout-sandbox release: unknown option --no-biuld\nusage: node scripts\/release\.js /);
  expect(existsSync(stale)).toBe(true);
  rmSync(stale);
});

test('a release again into the same directory replaces the earlier one (an older version too) and leaves other files alone', () => {
  writeFileSync(join(out, 'payout-sandbox-0.0.1.oci.tar'), 'an older release');
  writeFileSync(join(out, 'payout-sandbox-0.0.1.tgz'), 'an older release');
  writeFileSync(join(out, 'NOTES.txt'), 'mine');
  const again = releaseScript(['--no-build', '--no-image', '--out', out]);
  expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
  expect(again.stdout).toContain('; no container image (--no-image)');
  expect(manifest().image).toEqual({ included: false, reason: expect.stringContaining('--no-image') });
  expect(readdirSync(out).sort()).toEqual([...manifest().files.map((f) => f.name), 'manifest.json', 'SHA256SUMS', 'NOTES.txt'].sort());
  expect(spawnSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out }).status).toBe(0);
}, 60_000);
