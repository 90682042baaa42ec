import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
// @ts-expect-error: a build script, plain JavaScript with no types.
import { SCHEMAS, schemaFiles } from '../scripts/build-schemas.js';
import { FixturesSchema } from '../src/sandbox/fixtures.js';
import { ScenarioSchema } from '../src/scenario/schema.js';

/**
 * The JSON Schemas of schemas/ (for editors): generated from the TypeBox schemas that validate
 * the files (up to date with them), valid JSON Schema 2020-12, and every shipped scenario and
 * fixtures file, and every YAML scenario example of the docs, valid against them and naming them.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

type Plugin = (ajv: Ajv2020, formats: string[]) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: Plugin }).default ?? addFormatsModule) as unknown as Plugin;

/** A validator as an editor would use one: draft 2020-12, formats, the sandbox's x- keywords as annotations. */
function validatorOf(file: string) {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, validateSchema: true });
  addFormats(ajv, ['email', 'date', 'date-time', 'uri']);
  ajv.addVocabulary(['x-message', 'x-required-when', 'x-decimals']);
  return ajv.compile(JSON.parse(read(file)));
}

const scenario = () => validatorOf('schemas/scenario.schema.json');
const fixtures = () => validatorOf('schemas/fixtures.schema.json');

test('schemas/ is what the TypeBox schemas give (else: npm run schemas)', () => {
  const files = schemaFiles({ scenario: ScenarioSchema, fixtures: FixturesSchema }) as Array<{ file: string; text: string }>;
  expect(files.map((f) => f.file).sort()).toEqual(
    readdirSync(join(ROOT, 'schemas'))
      .map((f) => `schemas/${f}`)
      .sort(),
  );
  for (const { file, text } of files) {
    expect({ file, upToDate: read(file) === text }).toEqual({ file, upToDate: true });
  }
});

test('each schema has a stable $id and is a valid draft 2020-12 schema', () => {
  for (const { file, id } of SCHEMAS as Array<{ file: string; id: string }>) {
    const doc = JSON.parse(read(file));
    expect(doc.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(doc.$id).toBe(id);
    expect(() => validatorOf(file)).not.toThrow();
  }
});

test('every shipped scenario and fixtures file names its schema and is valid against it', () => {
  const shipped = [
    ...readdirSync(join(ROOT, 'scenarios')).map((f) => ({ file: `scenarios/${f}`, schema: '../schemas/scenario.schema.json', check: scenario() })),
    ...readdirSync(join(ROOT, 'fixtures')).map((f) => ({ file: `fixtures/${f}`, schema: '../schemas/fixtures.schema.json', check: fixtures() })),
  ];
  expect(shipped.length).toBeGreaterThanOrEqual(3);
  for (const { file, schema, check } of shipped) {
    const doc = /\.ya?ml$/.test(file) ? parseYaml(read(file)) : JSON.parse(read(file));
    expect({ file, $schema: doc.$schema }).toEqual({ file, $schema: schema });
    const valid = check(doc);
    expect({ file, errors: valid ? null : check.errors }).toEqual({ file, errors: null });
  }
});

test("the docs' YAML scenario examples carry the yaml-language-server line and are valid", () => {
  const check = scenario();
  const blocks = [...read('docs/scenarios.md').matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  expect(blocks.length).toBeGreaterThanOrEqual(3);
  for (const block of blocks) {
    expect(block.split('\n')[0]).toBe('# yaml-language-server: $schema=payout-sandbox/schemas/scenario.schema.json');
    const valid = check(parseYaml(block));
    expect({ block: block.slice(0, 80), errors: valid ? null : check.errors }).toEqual({ block: block.slice(0, 80), errors: null });
  }
});

test('what an editor then flags: a misspelt status, an unknown field; a file that extends needs only what it changes', () => {
  const check = scenario();
  expect(check({ name: 'x', payouts: { default_timeline: [{ after: '5s', status: 'Sucess' }] } })).toBe(false);
  expect(check({ name: 'x', payouts: { default_timeline: [] }, payout: {} })).toBe(false);
  expect(check({ name: 'x' })).toBe(false);
  expect(check({ extends: 'default', name: 'x' })).toBe(true);
  expect(check({ extends: 'default', payouts: { rules: [{ name: 'r', match: { amount: 1 }, reject: { code: 'INSUFFICIENT_BALANCE' } }] } })).toBe(true);
  expect(check({ extends: 'default', limits: { status_check: { limit: 'three' } } })).toBe(false);
  const f = fixtures();
  expect(f({ merchants: [] })).toBe(false);
});
