// Build step: the dashboard's files into dist/ui, so the sandbox serves them itself, offline, with
// nothing else to build or run: the page and its style from ui/, and its script, ui/app.js with
// every module it imports and Preact + htm (vendored from the htm package's standalone build)
// bundled into one file by esbuild, with a source map beside it for the browser's developer tools.
// One script rather than some 25 modules: a page load is three requests, not six rounds of them
// on the browser's six connections (measured in docs/performance.md, "The dashboard's first load").
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist/ui');
// From scratch, so nothing of an earlier build is served.
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'vendor'), { recursive: true });
copyFileSync(join(root, 'ui/style.css'), join(out, 'style.css'));
// The package's entry is <htm>/dist/htm.js (its exports do not list package.json).
const require = createRequire(import.meta.url);
const htm = join(dirname(require.resolve('htm')), '..');
const preact = join(htm, 'preact/standalone.module.js');
copyFileSync(join(htm, 'LICENSE'), join(out, 'vendor/LICENSE-htm.txt'));

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
  outfile: join(out, 'app.js'),
  plugins: [vendored],
  logLevel: 'warning',
  legalComments: 'eof',
});

copyFileSync(join(root, 'ui/index.html'), join(out, 'index.html'));
