// `npm run schemas`: the JSON Schemas of the scenario and fixtures files, written to schemas/ from
// the same TypeBox schemas that validate them (src/scenario/schema.ts ScenarioSchema,
// src/sandbox/fixtures.ts FixturesSchema), for editors: the shipped files name them in `$schema`,
// YAML files in a `# yaml-language-server: $schema=` line. schemas/ is committed;
// test/schemas.test.ts fails when it no longer matches the TypeBox source (run this to update it).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Each published schema: its file under schemas/, stable `$id`, title and what it describes. */
export const SCHEMAS = [
  {
    file: 'schemas/scenario.schema.json',
    id: 'urn:payout-sandbox:schema:scenario:v1',
    title: 'payout-sandbox scenario',
    description:
      'A scenario file of payout-sandbox (--scenario FILE, JSON or YAML): behaviour rules, timelines, faults, limits, webhooks. See docs/scenarios.md.',
    schema: 'scenario',
    // A file that extends another gives only what it changes: checked as a whole once merged, so
    // here nothing is required of it.
    extendable: true,
  },
  {
    file: 'schemas/fixtures.schema.json',
    id: 'urn:payout-sandbox:schema:fixtures:v1',
    title: 'payout-sandbox fixtures',
    description: 'A fixtures file of payout-sandbox (--fixtures FILE): merchants, accounts, beneficiaries, checkout transactions. See docs/fixtures.md.',
    schema: 'fixtures',
  },
];

/** A schema with no `required` anywhere: what a file that `extends` another must be. */
function withoutRequired(schema) {
  if (Array.isArray(schema)) return schema.map(withoutRequired);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k, v]) => !(k === 'required' && Array.isArray(v)))
      .map(([k, v]) => [k, withoutRequired(v)]),
  );
}

/**
 * The text of each schema file, from the TypeBox schemas given (`{ scenario, fixtures }`): the
 * draft 2020-12 document with `$id`, `title` and `description` first, the schema's own keywords
 * after (TypeBox's symbol keys are not JSON and drop out). The scenario's: when the file has
 * `extends`, the same schema with nothing required.
 */
export function schemaFiles(schemas) {
  return SCHEMAS.map(({ file, id, title, description, schema, extendable }) => {
    const own = JSON.parse(JSON.stringify(schemas[schema]));
    const body = extendable
      ? {
          type: 'object',
          if: { type: 'object', required: ['extends'] },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable
          then: withoutRequired(own),
          else: own,
        }
      : own;
    const document = { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: id, title, description, ...body };
    return { file, text: `${JSON.stringify(document, null, 2)}\n` };
  });
}

async function main() {
  const { ScenarioSchema } = await import('../dist/scenario/schema.js');
  const { FixturesSchema } = await import('../dist/sandbox/fixtures.js');
  for (const { file, text } of schemaFiles({ scenario: ScenarioSchema, fixtures: FixturesSchema })) {
    writeFileSync(join(root, file), text);
    process.stdout.write(`${file}\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
