// Build step (`npm run build:binary`, after `npm run build`): the standalone executable
// dist/payout-sandbox-<platform>-<arch>, a Node single executable application. The CLI bundled
// into one CommonJS file, a code cache of it, and the shipped files (package.json, fixtures/,
// scenarios/, dist/verified-files.json, dist/ui/) as assets, injected into a copy of this Node
// binary with postject. It needs no Node, no node_modules and no files beside it: the sandbox
// reads its shipped files from inside itself (src/shipped.ts).
//
// A V8 startup snapshot (useSnapshot) was tried and does not work here: Node 20's snapshot
// builder cannot load node:http (Express needs it at load), and with that worked around V8
// aborts writing the snapshot. The code cache is used instead (docs/performance.md).
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, 'dist/sea');
/** Where the executable goes: dist/payout-sandbox-linux-x64 on this machine. */
const BINARY = join(root, `dist/payout-sandbox-${process.platform}-${process.arch}`);
/** The fuse Node's binary carries for postject (the same in every Node release with SEA support). */
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

function filesUnder(dir) {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) =>
      relative(root, join(e.parentPath ?? e.path, e.name))
        .split('\\')
        .join('/'),
    )
    .sort();
}

/** The shipped files, by their path under the package (the key src/shipped.ts asks for). */
function assets() {
  for (const built of ['dist/cli.js', 'dist/verified-files.json', 'dist/ui/index.html']) {
    if (!existsSync(join(root, built))) throw new Error(`${built} is missing: run npm run build first (npm run build:binary does).`);
  }
  const keys = [
    'package.json',
    ...filesUnder('fixtures').filter((f) => f.endsWith('.json')),
    ...filesUnder('scenarios').filter((f) => /\.(json|ya?ml)$/.test(f)),
    'dist/verified-files.json',
    ...filesUnder('dist/ui'),
  ];
  return Object.fromEntries(keys.map((k) => [k, join(root, k)]));
}

/** Runs a build tool quietly; its output only when it fails. */
function run(file, args) {
  try {
    execFileSync(file, args, { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`${[file, ...args].join(' ')} failed:\n${err.stdout}${err.stderr}`);
  }
}

/**
 * The executable's entry: the CLI, as bin/payout-sandbox.js runs it, but `wait` (the container's
 * HEALTHCHECK, run every second) loads only its own module: esbuild wraps each required module
 * in a lazy initialiser, so the server's modules are neither evaluated nor compiled for it.
 */
const ENTRY = `if (process.env.PAYOUT_SANDBOX_HANDLE_ECHO === '1') {
  // The helper the server starts to get more listening handles (src/accept.ts): nothing else loads.
  require('./dist/handle-echo.js').runHandleEcho();
} else if (process.argv[2] === 'wait') {
  require('./dist/client/wait.js').main(process.argv);
} else {
  require('./dist/cli.js').main(process.argv).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
`;

async function main() {
  const started = Date.now();
  const shipped = assets();
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  // One CommonJS file (a single executable's entry must be CommonJS): the CLI and every dependency.
  await build({
    stdin: {
      contents: ENTRY,
      resolveDir: root,
      sourcefile: 'sea-entry.js',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: join(work, 'main.cjs'),
    logLevel: 'warning',
    // src/shipped.ts reads import.meta.url only outside the executable.
    logOverride: { 'empty-import-meta': 'silent' },
  });
  const config = {
    main: join(work, 'main.cjs'),
    output: join(work, 'sea-prep.blob'),
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    assets: shipped,
  };
  writeFileSync(join(work, 'sea-config.json'), `${JSON.stringify(config, null, 2)}\n`);
  run(process.execPath, ['--experimental-sea-config', join(work, 'sea-config.json')]);
  // A copy of this Node binary, the blob injected, then renamed into place: never half an executable.
  const temp = `${BINARY}.${process.pid}.tmp`;
  copyFileSync(process.execPath, temp);
  chmodSync(temp, 0o755);
  const postject = join(dirname(createRequire(import.meta.url).resolve('postject')), 'cli.js');
  try {
    run(process.execPath, [postject, temp, 'NODE_SEA_BLOB', config.output, '--sentinel-fuse', FUSE]);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  renameSync(temp, BINARY);
  rmSync(config.output);
  const mib = (statSync(BINARY).size / 2 ** 20).toFixed(1);
  process.stdout.write(
    `${relative(root, BINARY)}: ${mib} MiB, ${Object.keys(shipped).length} shipped files inside, built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
}

await main();
