import { resolve } from 'node:path';
import { schemaErrors } from '../contract/validate.js';
import { readDocument } from '../input-file.js';
import { PACKAGE_ROOT } from '../version.js';
import { compileScenario } from './compile.js';
import { type ExtendsPolicy, resolveExtends } from './extends.js';
import { type ScenarioFile, ScenarioSchema } from './schema.js';
import { type Scenario, ScenarioError } from './types.js';

export { compileScenario } from './compile.js';
export * from './types.js';

export const DEFAULT_SCENARIO = resolve(PACKAGE_ROOT, 'scenarios/default.json');

/** Validates a parsed scenario document (from a file, or inline through the control API). */
export function scenarioFromValue(value: unknown, source: string | null): Scenario {
  const problems = schemaErrors(ScenarioSchema, value);
  if (problems) throw new ScenarioError(problems.map((p) => `${source ?? 'scenario'}: ${p}`).join('\n'));
  return compileScenario(value as ScenarioFile, source);
}

/**
 * A scenario document that may extend another (`extends`): the chain resolved, then validated as
 * one. `policy`: the document came through the control API, and may extend only what it allows.
 */
export async function resolveScenario(value: unknown, source: string | null, policy?: ExtendsPolicy): Promise<Scenario> {
  return scenarioFromValue(await resolveExtends(value, source, [], policy), source);
}

/** Reads a scenario file, JSON or YAML (by extension: .yaml/.yml are YAML). */
export async function loadScenario(file: string): Promise<Scenario> {
  const { value, verified } = await readDocument(file, 'scenario', (m) => new ScenarioError(m), { yaml: true });
  // A shipped scenario the build validated is compiled without validating it again.
  const extended = typeof value === 'object' && value !== null && 'extends' in value;
  return verified && !extended ? compileScenario(value as ScenarioFile, file) : resolveScenario(value, file);
}
