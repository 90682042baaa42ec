// Build step: validates every shipped fixtures and scenario file in full (the build fails on a bad
// one) and records the SHA-256 of each in dist/verified-files.json, so that start-up can skip
// validating a shipped file that has not changed since (src/input-file.ts).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { sha256, VERIFIED_FILES } from '../dist/input-file.js';
import { fixturesFromValue } from '../dist/sandbox/fixtures.js';
import { scenarioFromValue } from '../dist/scenario/scenario.js';
import { PACKAGE_ROOT } from '../dist/version.js';

const digests = {};
const files = [
  ...readdirSync(join(PACKAGE_ROOT, 'fixtures'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => ['fixtures', f]),
  ...readdirSync(join(PACKAGE_ROOT, 'scenarios'))
    .filter((f) => /\.(json|ya?ml)$/.test(f))
    .map((f) => ['scenarios', f]),
];
for (const [dir, name] of files) {
  const rel = `${dir}/${name}`;
  const text = readFileSync(join(PACKAGE_ROOT, rel), 'utf8');
  const value = /\.ya?ml$/.test(name) ? parseYaml(text) : JSON.parse(text);
  if (dir === 'fixtures') fixturesFromValue(value, rel);
  else scenarioFromValue(value, rel);
  digests[rel] = sha256(text);
}
writeFileSync(VERIFIED_FILES, `${JSON.stringify(digests, null, 2)}\n`);
