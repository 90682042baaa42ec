// Build step (`npm run build:image`, after `npm run build:binary`): the container image
// payout-sandbox:<version> (and :latest), FROM scratch (Dockerfile). Stages dist/image/rootfs
// with the standalone executable, exactly the shared libraries `ldd` lists for it (the loader
// included), /etc/passwd and /etc/group for the image's user, /etc/nsswitch.conf, /tmp and /data
// (writable by any uid); then builds with podman, or docker when podman is not there. Offline:
// nothing is pulled.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { containerEngine } from './container-engine.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const binary = join(root, `dist/payout-sandbox-${process.platform}-${process.arch}`);
const context = join(root, 'dist/image');
const rootfs = join(context, 'rootfs');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
/** The image's user and group (no name needed to run; the passwd entry is for tools that ask). */
const UID = 10001;

/** The files `ldd` lists: `libc.so.6 => /lib/…/libc.so.6 (0x…)` and the loader `/lib64/ld-linux-x86-64.so.2 (0x…)`. */
export function linkedLibraries(file) {
  const out = execFileSync('ldd', [file], { encoding: 'utf8' });
  if (/not a dynamic executable/.test(out)) return [];
  const missing = out.split('\n').filter((l) => /=> not found/.test(l));
  if (missing.length > 0) throw new Error(`${file} links libraries this machine does not have:\n${missing.join('\n')}`);
  return [...out.matchAll(/^\s*(?:\S+\s+=>\s+)?(\/\S+)\s+\(0x[0-9a-f]+\)\s*$/gm)].map((m) => m[1]);
}

/** Copies a file to the same path under the root, the content of a link rather than the link. */
function place(file, as = file) {
  const target = join(rootfs, as);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
  return target;
}

function stage() {
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run npm run build:binary first (npm run build:image does).`);
  if (process.platform !== 'linux') throw new Error('the image holds a Linux executable: build it on Linux');
  rmSync(context, { recursive: true, force: true });
  chmodSync(place(binary, '/usr/local/bin/payout-sandbox'), 0o755);
  const libraries = linkedLibraries(binary);
  for (const lib of libraries) place(lib);
  mkdirSync(join(rootfs, 'etc'), { recursive: true });
  writeFileSync(join(rootfs, 'etc/passwd'), `root:x:0:0:root:/:/sbin/nologin\nsandbox:x:${UID}:${UID}:payout-sandbox:/data:/sbin/nologin\n`);
  writeFileSync(join(rootfs, 'etc/group'), `root:x:0:\nsandbox:x:${UID}:\n`);
  // Host names from /etc/hosts first (the engine writes host.containers.internal / host.docker.internal there).
  writeFileSync(join(rootfs, 'etc/nsswitch.conf'), 'hosts: files dns\n');
  mkdirSync(join(rootfs, 'tmp'));
  chmodSync(join(rootfs, 'tmp'), 0o1777);
  // The data volume: the image runs under any uid (`--user`), not only its own, so any user may write there, as in /tmp.
  mkdirSync(join(rootfs, 'data'));
  chmodSync(join(rootfs, 'data'), 0o1777);
  return libraries;
}

function main() {
  const engine = containerEngine();
  if (engine === null) {
    process.stderr.write('payout-sandbox image: neither podman nor docker is available: install one (Debian: apt-get install podman runc)\n');
    process.exit(1);
  }
  const started = Date.now();
  const libraries = stage();
  const tags = [`payout-sandbox:${version}`, 'payout-sandbox:latest'];
  const before = tags.map((t) => spawnSync(engine.cmd, ['image', 'inspect', '--format', '{{.Id}}', t], { encoding: 'utf8' }).stdout?.trim()).filter(Boolean);
  const args = [...engine.global, 'build', ...engine.buildFlags, '-f', join(root, 'Dockerfile'), ...tags.flatMap((t) => ['-t', t]), context];
  const built = spawnSync(engine.cmd, args, { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`${engine.cmd} ${args.join(' ')} failed:\n${built.stdout}${built.stderr}`);
  // The images these tags named before, now untagged: removed (unless a container still uses one).
  const now = new Set(tags.map((t) => spawnSync(engine.cmd, ['image', 'inspect', '--format', '{{.Id}}', t], { encoding: 'utf8' }).stdout?.trim()));
  for (const id of new Set(before)) if (!now.has(id)) spawnSync(engine.cmd, ['rmi', id], { stdio: 'ignore' });
  // Which build of the executable this image holds (its mtime): the tests' ensureImage() rebuilds only when it changed.
  writeFileSync(join(root, 'dist/image-built-from'), String(statSync(binary).mtimeMs));
  const size = Number(execFileSync(engine.cmd, ['image', 'inspect', '--format', '{{.Size}}', tags[0]], { encoding: 'utf8' }).trim());
  process.stdout.write(
    `${tags.join(', ')}: ${(size / 2 ** 20).toFixed(1)} MiB (the executable and ${libraries.length} libraries: ${libraries.join(' ')}), ` +
      `built with ${engine.cmd} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
