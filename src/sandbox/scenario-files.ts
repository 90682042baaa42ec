import { resolve } from 'node:path';
import { RequestError } from '../errors.js';
import { fileExists } from '../shipped.js';
import { PACKAGE_ROOT } from '../version.js';

/** What a scenario name (a file of scenarios/ without its extension) may be. */
export const SCENARIO_NAME_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

/** The file of scenarios/ a name stands for (400 for a bad name, 404 for none). */
export function scenarioFile(name: string): string {
  if (!new RegExp(SCENARIO_NAME_PATTERN).test(name)) throw new RequestError(400, 'The name must name a file in scenarios/ (letters, digits, - and _).');
  const file = ['json', 'yaml', 'yml'].map((ext) => resolve(PACKAGE_ROOT, 'scenarios', `${name}.${ext}`)).find((f) => fileExists(f));
  if (!file) throw new RequestError(404, `No scenario named ${name} in scenarios/.`);
  return file;
}
