// Build step: the dashboard's files into dist/ui (the page, its modules and style from ui/, and
// Preact + htm vendored from the htm package's standalone build), so the sandbox serves them
// itself, offline, with nothing else to build or run.
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist/ui');
// From scratch, so a module removed from ui/ is not served (or preloaded) any more.
rmSync(out, { recursive: true, force: true });
cpSync(join(root, 'ui'), out, { recursive: true });
mkdirSync(join(out, 'vendor'), { recursive: true });
// The package's entry is <htm>/dist/htm.js (its exports do not list package.json).
const require = createRequire(import.meta.url);
const htm = join(dirname(require.resolve('htm')), '..');
copyFileSync(join(htm, 'preact/standalone.module.js'), join(out, 'vendor/preact-htm.js'));
copyFileSync(join(htm, 'LICENSE'), join(out, 'vendor/LICENSE-htm.txt'));

// Without a bundler the browser finds each module only once the one importing it has arrived;
// preloading them all from the page fetches the whole graph at once.
const modules = readdirSync(out, { recursive: true })
  .map((file) => file.split('\\').join('/'))
  .filter((file) => file.endsWith('.js') && file !== 'app.js')
  .sort();
const page = join(out, 'index.html');
const marker = /^.*<!-- modulepreload\b.*-->$/m;
const html = readFileSync(page, 'utf8');
if (!marker.test(html)) throw new Error('ui/index.html has no <!-- modulepreload --> line');
writeFileSync(page, html.replace(marker, modules.map((m) => `  <link rel="modulepreload" href="/__sandbox/ui/${m}">`).join('\n')));
