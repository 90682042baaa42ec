// Release step (`npm run release`: builds the executable and the image, then the release; the
// tag workflow .github/workflows/release.yml runs it and attaches release/ to the GitHub release).
// In release/ (or --out DIR): the standalone executable payout-sandbox-<platform>-<arch> and its
// .sha256 (sha256sum format), the container image as an OCI archive, the npm tarball, the JSON
// Schemas, manifest.json (what each file is, its size and SHA-256, the commit, the Node) and
// SHA256SUMS of every file. docs/releases.md.
//
//   node scripts/release.js [--no-build] [--no-image] [--out DIR]
//
// Without --no-build it runs `npm run build:binary` and scripts/build-image.js first.
// --no-build: use the executable and the image already built (dist/, the engine's store; the
//   image must be built from that executable: dist/image-built-from says which).
// --no-image: no container image (a machine without podman or docker); the manifest and the
//   summary say so. Without it and without an engine: exit 1, saying what to install.
// Unknown options: exit 2.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { containerEngine } from './container-engine.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const PLATFORM = `${process.platform}-${process.arch}`;
const EXECUTABLE = `payout-sandbox-${PLATFORM}`;
const IMAGE = `payout-sandbox:${pkg.version}`;
const IMAGE_FILE = `payout-sandbox-${pkg.version}.oci.tar`;
const SCHEMAS = ['schemas/scenario.schema.json', 'schemas/fixtures.schema.json'];
/** Written by scripts/build-image.js: the mtime of the executable the image was built from. */
const IMAGE_STAMP = join(root, 'dist/image-built-from');
const USAGE = 'usage: node scripts/release.js [--no-build] [--no-image] [--out DIR]';

/** A failure with a message for the user (no stack trace): exit 1, or `code`. */
class ReleaseError extends Error {
  constructor(message, code = 1) {
    super(message);
    this.code = code;
  }
}

function parseArgs(argv) {
  const opts = { build: true, image: true, out: join(root, 'release') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--no-build') opts.build = false;
    else if (arg === '--no-image') opts.image = false;
    else if (arg === '--out' && argv[i + 1] !== undefined) opts.out = resolve(argv[++i]);
    else if (arg.startsWith('--out=')) opts.out = resolve(arg.slice('--out='.length));
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else throw new ReleaseError(`unknown option ${arg}\n${USAGE}`, 2);
  }
  return opts;
}

/** Runs a command; its output goes to stderr (stdout is for the summary line). */
function step(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) throw new ReleaseError(`${[cmd, ...args].join(' ')} failed (exit ${r.status ?? r.signal ?? r.error?.message})`);
}

/** Runs a command and returns its stdout; its output in the error when it fails. */
function capture(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0)
    throw new ReleaseError(`${[cmd, ...args].join(' ')} failed (exit ${r.status ?? r.signal ?? r.error?.message}):\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  return r.stdout;
}

function sha256(file) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

function commit() {
  const r = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' });
  return r.status === 0 && /^[0-9a-f]{40}$/.test(r.stdout.trim()) ? r.stdout.trim() : null;
}

/** A file an earlier release left in the out directory (any version): removed before this one. */
const previousArtefact = (name) => /^payout-sandbox-/.test(name) || name.endsWith('.schema.json') || name === 'manifest.json' || name === 'SHA256SUMS';

function size(bytes) {
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  if (bytes >= 2 ** 10) return `${(bytes / 2 ** 10).toFixed(1)} KiB`;
  return `${bytes} B`;
}

/** A directory as the summary names it: relative to the working directory when under it. */
function shown(dir) {
  const rel = relative(process.cwd(), dir);
  return rel === '' ? '.' : rel.startsWith('..') ? dir : rel;
}

/** The image, checked: it exists and was built from the executable being released. */
function checkImage(engine, executable) {
  const id = spawnSync(engine.cmd, [...engine.global, 'image', 'inspect', '--format', '{{.Id}}', IMAGE], { encoding: 'utf8' });
  if (id.status !== 0) throw new ReleaseError(`the image ${IMAGE} is not in ${engine.cmd}'s store: build it first (npm run build:image), or drop --no-build`);
  const stamp = existsSync(IMAGE_STAMP) ? readFileSync(IMAGE_STAMP, 'utf8').trim() : null;
  if (stamp !== String(statSync(executable).mtimeMs)) {
    throw new ReleaseError(
      `the image ${IMAGE} was not built from this ${relative(root, executable)} (${stamp === null ? 'dist/image-built-from is missing' : 'dist/image-built-from names another build'}): ` +
        'rebuild it (node scripts/build-image.js, or npm run build:image), or drop --no-build',
    );
  }
  return id.stdout.trim();
}

async function main() {
  const started = Date.now();
  const opts = parseArgs(process.argv.slice(2));
  const engine = opts.image ? containerEngine() : null;
  if (opts.image && engine === null) {
    throw new ReleaseError(
      'neither podman nor docker is available to save the container image: install one (Debian: apt-get install podman runc), or pass --no-image for a release without the image',
    );
  }
  const executable = join(root, 'dist', EXECUTABLE);
  // Never the repository itself nor dist/: emptying it of earlier artefacts would remove what is being released.
  if ([root, dirname(executable), '/'].includes(opts.out))
    throw new ReleaseError(`--out ${opts.out}: choose a directory of its own (the default is release/)`, 2);

  if (opts.build) {
    step('npm', ['run', 'build:binary']);
    if (opts.image) step(process.execPath, [join(root, 'scripts/build-image.js')]);
  }
  if (!existsSync(executable)) throw new ReleaseError(`${relative(root, executable)} is missing: build it first (npm run build:binary), or drop --no-build`);
  if (!existsSync(join(root, 'dist/cli.bundle.js')))
    throw new ReleaseError('dist/ is not built (no dist/cli.bundle.js): run npm run build first, or drop --no-build');
  const imageId = engine === null ? null : checkImage(engine, executable);

  // The out directory, emptied of an earlier release's files (other files are left alone).
  mkdirSync(opts.out, { recursive: true });
  for (const entry of readdirSync(opts.out, { withFileTypes: true })) {
    if (entry.isFile() && previousArtefact(entry.name)) rmSync(join(opts.out, entry.name));
  }
  const files = [];
  const add = (name, kind) => files.push({ name, kind });

  copyFileSync(executable, join(opts.out, EXECUTABLE));
  chmodSync(join(opts.out, EXECUTABLE), 0o755);
  add(EXECUTABLE, 'executable');
  writeFileSync(join(opts.out, `${EXECUTABLE}.sha256`), `${await sha256(join(opts.out, EXECUTABLE))}  ${EXECUTABLE}\n`);
  add(`${EXECUTABLE}.sha256`, 'checksum');

  if (engine !== null) {
    const target = join(opts.out, IMAGE_FILE);
    // podman: an OCI archive; docker (which has no --format): its own archive, which holds an OCI layout too.
    const save = engine.cmd === 'podman' ? ['save', '--quiet', '--format', 'oci-archive', '-o', target, IMAGE] : ['save', '-o', target, IMAGE];
    capture(engine.cmd, [...engine.global, ...save]);
    add(IMAGE_FILE, 'image');
  }

  // The tree is built (npm run build:binary built it, or --no-build says so): pack what is there.
  const packed = JSON.parse(capture('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', opts.out]));
  add(basename(packed[0].filename), 'npm');

  for (const schema of SCHEMAS) {
    copyFileSync(join(root, schema), join(opts.out, basename(schema)));
    add(basename(schema), 'schema');
  }

  for (const file of files) {
    const path = join(opts.out, file.name);
    file.size = statSync(path).size;
    file.sha256 = await sha256(path);
  }
  const manifest = {
    name: pkg.name,
    version: pkg.version,
    commit: commit(),
    created: new Date().toISOString(),
    node: process.version,
    platform: PLATFORM,
    image:
      engine === null
        ? { included: false, reason: 'released with --no-image: the container image is not in this release' }
        : { included: true, tag: IMAGE, id: imageId, engine: engine.cmd, file: IMAGE_FILE },
    files,
  };
  writeFileSync(join(opts.out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const sums = [...files, { name: 'manifest.json', sha256: await sha256(join(opts.out, 'manifest.json')) }];
  writeFileSync(join(opts.out, 'SHA256SUMS'), sums.map((f) => `${f.sha256}  ${f.name}\n`).join(''));

  const total = files.reduce((sum, f) => sum + f.size, 0) + statSync(join(opts.out, 'manifest.json')).size + statSync(join(opts.out, 'SHA256SUMS')).size;
  const listed = files
    .filter((f) => f.kind !== 'schema' && f.kind !== 'checksum')
    .map((f) => `${f.name} ${size(f.size)}`)
    .concat(`2 schemas ${size(files.filter((f) => f.kind === 'schema').reduce((sum, f) => sum + f.size, 0))}`);
  process.stdout.write(
    `payout-sandbox ${pkg.version} release in ${shown(opts.out)}/: ${files.length + 2} files, ${size(total)} ` +
      `(${listed.join(', ')}, .sha256, manifest.json, SHA256SUMS)` +
      `${engine === null ? '; no container image (--no-image)' : ''}, in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`payout-sandbox release: ${err instanceof ReleaseError ? err.message : err.stack}\n`);
  process.exit(err instanceof ReleaseError ? err.code : 1);
});
