// Build step: the dashboard's files into dist/ui (the page, its script and style from ui/, and
// Preact + htm vendored from the htm package's standalone build), so the sandbox serves them
// itself, offline, with nothing else to build or run.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist/ui');
mkdirSync(join(out, 'vendor'), { recursive: true });
for (const file of readdirSync(join(root, 'ui'))) copyFileSync(join(root, 'ui', file), join(out, file));
// The package's entry is <htm>/dist/htm.js (its exports do not list package.json).
const require = createRequire(import.meta.url);
const htm = join(dirname(require.resolve('htm')), '..');
copyFileSync(join(htm, 'preact/standalone.module.js'), join(out, 'vendor/preact-htm.js'));
copyFileSync(join(htm, 'LICENSE'), join(out, 'vendor/LICENSE-htm.txt'));
