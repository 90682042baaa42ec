// Build step: the dashboard's files into dist/ui, so the sandbox serves them itself, offline, with
// nothing else to build or run: the page and its style from ui/, and its script, ui/app.js with
// every module it imports and Preact + htm (from the htm package's standalone build) bundled into
// one file by esbuild, with a source map beside it for the browser's developer tools, and the
// licences of Preact and htm in vendor/. One script rather than some 25 modules: a page load is
// three requests, not six rounds of them on the browser's six connections (docs/performance.md,
// "The dashboard's first load"). Built beside dist/ui and moved into place at the end, so that a
// sandbox running meanwhile never reads half a build (it reads the files once, when first asked).
import { copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist/ui');
const next = join(root, `dist/ui.${process.pid}.tmp`);
rmSync(next, { recursive: true, force: true });
mkdirSync(join(next, 'vendor'), { recursive: true });
copyFileSync(join(root, 'ui/index.html'), join(next, 'index.html'));
copyFileSync(join(root, 'ui/style.css'), join(next, 'style.css'));
// The package's entry is <htm>/dist/htm.js (its exports do not list package.json).
const require = createRequire(import.meta.url);
const htm = join(dirname(require.resolve('htm')), '..');
const preact = join(htm, 'preact/standalone.module.js');
copyFileSync(join(htm, 'LICENSE'), join(next, 'vendor/LICENSE-htm.txt'));
// The standalone build is Preact and htm in one module: Preact's licence as well.
copyFileSync(join(root, 'ui/vendor/LICENSE-preact.txt'), join(next, 'vendor/LICENSE-preact.txt'));

// The modules import each other relatively and Preact + htm by the URL the sandbox once served
// it at: that URL is the vendored file.
const vendored = {
  name: 'vendored',
  setup(b) {
    b.onResolve({ filter: /^\/__sandbox\/ui\/vendor\/preact-htm\.js$/ }, () => ({ path: preact }));
    b.onResolve({ filter: /^\/__sandbox\// }, (args) => ({ errors: [{ text: `${args.path}: not a module of ui/ (import it relatively)` }] }));
  },
};
await build({
  entryPoints: [join(root, 'ui/app.js')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  sourcemap: true,
  outfile: join(next, 'app.js'),
  plugins: [vendored],
  logLevel: 'warning',
  banner: {
    js: '/*! payout-sandbox dashboard. Includes Preact (MIT, /__sandbox/ui/vendor/LICENSE-preact.txt) and htm (Apache-2.0, /__sandbox/ui/vendor/LICENSE-htm.txt). */',
  },
});

rmSync(out, { recursive: true, force: true });
renameSync(next, out);
