import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { forbiddenKeyPath, schemaErrors } from '../contract/validate.js';
import { readDocument } from '../input-file.js';
import { PACKAGE_ROOT } from '../version.js';
import { ScenarioSchema } from './schema.js';
import { ScenarioError } from './types.js';

/** A shipped scenario's name (`default`, `realistic`): `extends` takes one, or a file's path. */
const NAME = /^[A-Za-z0-9_-]+$/;
/** Sections whose `rules` merge by rule name rather than being replaced. */
const RULE_LISTS = new Set(['payouts', 'beneficiaries', 'checkout']);
const MAX_DEPTH = 10;

type Doc = Record<string, unknown>;
const isObject = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `rules` of a child over its base's: the child's rules first (the first rule that matches
 * decides, so they win), then the base's rules whose names the child does not use (a child rule
 * named as a base rule replaces it).
 */
function mergeRules(base: unknown, child: unknown): unknown {
  if (!Array.isArray(base) || !Array.isArray(child)) return child ?? base;
  const names = new Set(child.map((r) => (isObject(r) ? r.name : undefined)));
  return [...child, ...base.filter((r) => !(isObject(r) && names.has(r.name)))];
}

/** A child document over its base: objects merged key by key, rule lists by rule name, anything else the child's. */
export function mergeScenario(base: Doc, child: Doc, path: string[] = []): Doc {
  // The child was checked for __proto__ keys before (resolveExtends), so no assignment below sets
  // a prototype; the spread keeps a base's own __proto__ key as a field, for validation to refuse.
  const out: Doc = { ...base };
  for (const [key, value] of Object.entries(child)) {
    if (key === 'extends') continue;
    if (key === 'rules' && path.length === 1 && RULE_LISTS.has(path[0])) out[key] = mergeRules(base[key], value);
    else if (isObject(value) && isObject(base[key])) out[key] = mergeScenario(base[key], value, [...path, key]);
    else out[key] = value;
  }
  return out;
}

/**
 * Where a scenario that came from outside the sandbox's own files (the control API's inline
 * scenario) may take its base from: a shipped scenario by name, or a file inside `within` (the
 * directory of the sandbox's --scenario file; null: shipped names only). Anything else is refused
 * before any file is opened, so a refusal tells nothing of any file (not even whether it exists).
 */
export interface ExtendsPolicy {
  within: string | null;
}

/** Whether `file` is inside `dir`, after symbolic links (a link inside pointing outside is outside). */
async function inside(dir: string, file: string): Promise<boolean> {
  const real = async (p: string) => realpath(p).catch(() => resolve(p));
  const root = await real(dir);
  let target = resolve(file);
  try {
    target = await realpath(target);
  } catch {
    // A file that does not exist: its parent's real path decides (it is refused when read).
    target = resolve(await real(dirname(target)), target.slice(dirname(target).length + 1));
  }
  const rel = relative(root, target);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** Where `extends` points: a shipped scenario by name, or a file relative to the one that names it (an inline one: under its policy). */
async function baseFile(ref: string, from: string | null, policy: ExtendsPolicy | undefined, where: string): Promise<string> {
  if (NAME.test(ref)) return resolve(PACKAGE_ROOT, 'scenarios', `${ref}.json`);
  if (policy === undefined) return isAbsolute(ref) ? ref : resolve(from ? dirname(from) : process.cwd(), ref);
  const refused = new ScenarioError(
    `${where}: /extends: a scenario given through the control API may extend a shipped scenario by name (default, realistic) ` +
      (policy.within === null
        ? 'only (the sandbox was given its scenario in-process, so there is no scenario directory)'
        : `or a file in the directory of the sandbox's --scenario file (${policy.within}), named relative to it`),
  );
  if (policy.within === null) throw refused;
  const file = resolve(policy.within, ref);
  // A scenario file by its extension, and nothing hidden (.env, .git/…): no other file of that directory is read.
  const hidden = relative(policy.within, file)
    .split(sep)
    .some((part) => part.startsWith('.'));
  if (hidden || !/\.(json|ya?ml)$/i.test(file) || !(await inside(policy.within, file))) throw refused;
  return file;
}

/**
 * A scenario document with its `extends` chain resolved into one document (validated after, as a
 * whole): `extends: default` (or `realistic`, or a file) takes that scenario and puts this one's
 * fields over it. A chain may be up to 10 long; a cycle is refused.
 */
export async function resolveExtends(value: unknown, source: string | null, chain: string[] = [], policy?: ExtendsPolicy): Promise<unknown> {
  if (!isObject(value) || value.extends === undefined) return value;
  const where = source ?? 'scenario';
  const forbidden = forbiddenKeyPath(value);
  if (forbidden) throw new ScenarioError(`${where}: /${forbidden.join('/')}: is not allowed: __proto__, constructor and prototype are never field names`);
  if (typeof value.extends !== 'string' || value.extends === '')
    throw new ScenarioError(`${where}: /extends: must be a shipped scenario's name (default, realistic) or a scenario file's path`);
  const file = await baseFile(value.extends, source, policy, where);
  if (chain.includes(file) || file === source) throw new ScenarioError(`${where}: /extends: a cycle (${[...chain, source ?? 'inline', file].join(' → ')})`);
  if (chain.length >= MAX_DEPTH) throw new ScenarioError(`${where}: /extends: more than ${MAX_DEPTH} scenarios deep`);
  // Through the control API, a base that cannot be read or is no scenario is refused without a word of its content.
  const opaque = (why: string) => new ScenarioError(`${where}: /extends: ${value.extends} ${why} (start the sandbox with it as --scenario to see why)`);
  const { value: base } = await readDocument(
    file,
    'scenario',
    (m) => (policy === undefined ? new ScenarioError(`${where}: /extends: ${m}`) : opaque('cannot be read as a scenario file')),
    { yaml: true },
  );
  const resolved = await resolveExtends(base, file, [...chain, source ?? 'inline']).catch((err: unknown) => {
    throw policy === undefined ? err : opaque('is not a valid scenario');
  });
  if (!isObject(resolved))
    throw policy === undefined ? new ScenarioError(`${where}: /extends: ${file} is not a scenario (not an object)`) : opaque('is not a scenario');
  if (policy !== undefined && schemaErrors(ScenarioSchema, resolved) !== null) throw opaque('is not a valid scenario');
  return mergeScenario(resolved, value);
}
