import type { Static, TSchema } from '@sinclair/typebox';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 as Ajv } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { own } from '../own.js';

// ajv-formats is CommonJS; under NodeNext its default import is the module object, whose
// `default` is the plugin.
type FormatsPlugin = (ajv: Ajv, formats: string[]) => unknown;
const formatsModule = addFormatsModule as unknown as FormatsPlugin & { default?: FormatsPlugin };
const addFormats: FormatsPlugin = formatsModule.default ?? formatsModule;

function newAjv(optimize: boolean): Ajv {
  // validateSchema: false: these are the sandbox's own schemas (strict mode still refuses an unknown
  // keyword); checking them against the meta-schema compiled it on the first request after
  // listening, delaying that answer by ~40 ms (docs/performance.md, start-up).
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    validateSchema: false,
    code: { optimize },
  });
  addFormats(ajv, ['email', 'date', 'date-time', 'uri']);
  ajv.addVocabulary(['x-message', 'x-required-when']);
  ajv.addKeyword({
    keyword: 'x-decimals',
    type: 'number',
    schemaType: 'number',
    validate: (places: number, value: number) => {
      const text = String(value);
      if (/e/i.test(text)) return false;
      const dot = text.indexOf('.');
      return dot < 0 || text.length - dot - 1 <= places;
    },
  });
  return ajv;
}

/** Request schemas: compiled once, run on every request, so their code is optimized. */
const ajv = newAjv(true);
/** The sandbox's own files (fixtures, scenarios): each checked once, at start, so compiled fast. */
const fileAjv = newAjv(false);

const compiled = new WeakMap<TSchema, ValidateFunction>();
const compiledFiles = new WeakMap<TSchema, ValidateFunction>();

export function compile(schema: TSchema): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  return v;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; message: string };

/** Keys that are never data: assigned as fields they change an object's prototype or constructor. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The path (keys from the root) of the first `__proto__`, `constructor` or `prototype` key in a
 * parsed document, or null. JSON.parse and the YAML parser keep such a key as an own field; copied
 * by assignment (a merge, a spread into a new object) it would set a prototype instead, so it is
 * refused wherever the sandbox reads a document of its own (control bodies, scenarios, fixtures)
 * rather than dropped. Walked without recursion: a deeply nested body cannot exhaust the stack.
 */
export function forbiddenKeyPath(value: unknown): string[] | null {
  // Each entry links to its parent's: the path is made only for the key found (copying it at every
  // level would cost the square of the depth).
  interface At {
    v: unknown;
    key: string;
    parent: At | null;
  }
  const pathOf = (at: At | null, last: string): string[] => {
    const out = [last];
    for (let a = at; a !== null && a.parent !== null; a = a.parent) out.push(a.key);
    return out.reverse();
  };
  const stack: At[] = [{ v: value, key: '', parent: null }];
  while (stack.length > 0) {
    const at = stack.pop() as At;
    const v = at.v;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) if (v[i] !== null && typeof v[i] === 'object') stack.push({ v: v[i], key: String(i), parent: at });
      continue;
    }
    const keys = Object.keys(v);
    const bad = keys.find((k) => FORBIDDEN_KEYS.has(k));
    if (bad !== undefined) return pathOf(at, bad);
    for (let i = keys.length - 1; i >= 0; i--) {
      const child = (v as Record<string, unknown>)[keys[i] as string];
      if (child !== null && typeof child === 'object') stack.push({ v: child, key: keys[i] as string, parent: at });
    }
  }
  return null;
}

/** The rule a forbidden key breaks, in words. */
export const FORBIDDEN_KEY_RULE = 'is not allowed: __proto__, constructor and prototype are never field names';

export interface ValidateOptions {
  /**
   * The control API's reading (the sandbox's own interface, not the reference's): `null` is a
   * value (it clears a nullable field) and an empty string is `null` for a nullable field;
   * an unknown field is refused naming it and the fields the request takes; a value outside a
   * list is refused naming the allowed values.
   */
  strict?: boolean;
}

/**
 * Validates a request the way a Laravel back end does: strings trimmed, empty strings treated as
 * absent, a number given for a string field read as its text (and a numeric string for a number
 * field as its value, as form posts send), then the first failing field in the schema's order
 * reported with Laravel's wording.
 */
export function validate<S extends TSchema>(schema: S, input: unknown, options: ValidateOptions = {}): Validation<Static<S>> {
  if (input === undefined || input === null) input = {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, message: 'The request body must be a JSON object or a form.' };
  }
  const strict = options.strict === true;
  const forbidden = strict ? forbiddenKeyPath(input) : null;
  if (forbidden) return { ok: false, message: `The ${forbidden.join('.')} field ${FORBIDDEN_KEY_RULE}.` };
  const value = normalize(schema, input as Record<string, unknown>, strict);
  const check = compile(schema);
  if (check(value)) return { ok: true, value: value as Static<S> };
  return { ok: false, message: firstMessage(schema, check.errors ?? [], strict) };
}

/** Whether a field's schema takes null (TypeBox's Nullable: a union with null). */
function nullable(prop: TSchema | undefined): boolean {
  return Array.isArray(prop?.anyOf) && (prop.anyOf as TSchema[]).some((s) => s.type === 'null');
}

function normalize(schema: TSchema, input: Record<string, unknown>, strict: boolean): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, TSchema>;
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(input)) {
    // JSON.parse makes `__proto__` an own key; copied by assignment it would become the prototype.
    if (key === '__proto__') continue;
    const prop = own(props, key);
    let v = typeof raw === 'string' ? raw.trim() : raw;
    if (strict && nullable(prop) && (v === '' || v === null)) v = null;
    else if (v === '' || v === null) {
      if (!strict) continue;
    } else if (prop?.type === 'string' && typeof v === 'number' && Number.isFinite(v) && !(strict && Number.isInteger(v) && !Number.isSafeInteger(v))) {
      // (On the control API, not an integer past 2^53: JSON.parse has already changed its digits,
      // and a secret or an id read from it would not be the one sent. It is refused as not a string.)
      v = String(v);
    } else if ((prop?.type === 'number' || prop?.type === 'integer') && typeof v === 'string' && /^-?[0-9]+(\.[0-9]+)?$/.test(v)) v = Number(v);
    else if (prop?.type === 'object' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      v = normalize(prop, v as Record<string, unknown>, strict);
    }
    out[key] = v;
  }
  return out;
}

/** `client_ref_id` → `client ref id`; a nested `bank/account_no` → `bank.account no`. */
export function attributeName(path: string[]): string {
  return path.map((p) => p.replace(/_/g, ' ')).join('.');
}

// Lower ranks win within one field; a union's own `anyOf` failure only when nothing says more.
const KEYWORD_RANK: Record<string, number> = { required: 0, type: 1, anyOf: 9 };

interface Failure {
  path: string[];
  rank: number;
  message: string;
}

function firstMessage(schema: TSchema, errors: ErrorObject[], strict: boolean): string {
  if (strict) {
    const unknown = errors.find((e) => e.keyword === 'additionalProperties');
    if (unknown) {
      const path = [...unknown.instancePath.split('/').filter(Boolean), String(unknown.params.additionalProperty)];
      const allowed = Object.keys(((unknown.parentSchema ?? {}) as TSchema).properties ?? {});
      return `The ${path.join('.')} field is not one this request takes (it takes: ${allowed.join(', ') || 'no fields'}).`;
    }
  }
  const failures = errors.map((e) => describe(e, strict)).filter((f): f is Failure => f !== null);
  if (failures.length === 0) return 'The given data was invalid.';
  failures.sort((a, b) => compareFieldOrder(schema, a.path, b.path) || a.rank - b.rank);
  return failures[0].message;
}

function compareFieldOrder(schema: TSchema, a: string[], b: string[]): number {
  let s: TSchema | undefined = schema;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      const keys = Object.keys((s?.properties ?? {}) as object);
      const ia = keys.indexOf(a[i]);
      const ib = keys.indexOf(b[i]);
      return (ia < 0 ? keys.length : ia) - (ib < 0 ? keys.length : ib);
    }
    s = (s?.properties as Record<string, TSchema> | undefined)?.[a[i]];
  }
  return a.length - b.length;
}

function describe(e: ErrorObject, strict = false): Failure | null {
  const base = e.instancePath.split('/').filter(Boolean);
  const parent = (e.parentSchema ?? {}) as Record<string, unknown>;
  const rank = KEYWORD_RANK[e.keyword] ?? 2;
  if (e.keyword === 'required') {
    const path = [...base, String(e.params.missingProperty)];
    const when = parent['x-required-when'];
    const f = attributeName(path);
    const message = when ? `The ${f} field is required when ${when}.` : `The ${f} field is required.`;
    return { path, rank, message };
  }
  if (e.keyword === 'dependentRequired') {
    const path = [...base, String(e.params.missingProperty)];
    const message = `The ${attributeName(path)} field is required when ${attributeName([...base, String(e.params.property)])} is present.`;
    return { path, rank: 0, message };
  }
  if (e.keyword === 'if' || e.keyword === 'allOf') return null;
  // The `null` branch of a nullable field says nothing useful about a wrong value.
  if (e.keyword === 'type' && e.params.type === 'null') return null;
  const f = `The ${attributeName(base)} field`;
  switch (e.keyword) {
    case 'type':
      if (strict && e.params.type === 'integer') return { path: base, rank, message: `${f} must be a whole number.` };
      return { path: base, rank, message: `${f} must be ${typeWord(String(e.params.type))}.` };
    case 'minLength':
    case 'maxLength':
      return { path: base, rank, message: lengthMessage(f, parent, e.keyword) };
    case 'enum':
      if (strict) return { path: base, rank, message: `${f} must be one of ${(e.params.allowedValues as unknown[]).join(', ')}.` };
      return { path: base, rank, message: `The selected ${attributeName(base)} is invalid.` };
    case 'const':
      if (strict) return { path: base, rank, message: `${f} must be ${String(e.params.allowedValue)}.` };
      return { path: base, rank, message: `The selected ${attributeName(base)} is invalid.` };
    case 'format':
      if (e.params.format === 'email') return { path: base, rank, message: `${f} must be a valid email address.` };
      return { path: base, rank, message: `${f} ${String(parent['x-message'] ?? 'format is invalid.')}` };
    case 'pattern':
      return { path: base, rank, message: `${f} ${String(parent['x-message'] ?? 'format is invalid.')}` };
    case 'x-decimals':
      return { path: base, rank, message: `${f} must have 0-${String(parent['x-decimals'])} decimal places.` };
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum':
      if (strict) return { path: base, rank, message: `${f} must be ${BOUND_WORDS[e.keyword]} ${String(e.params.limit)}.` };
      return { path: base, rank, message: `${f} is invalid.` };
    default:
      return { path: base, rank, message: `${f} is invalid.` };
  }
}

const BOUND_WORDS: Record<string, string> = { minimum: 'at least', exclusiveMinimum: 'greater than', maximum: 'at most', exclusiveMaximum: 'less than' };

function typeWord(type: string): string {
  if (type === 'number' || type === 'integer') return 'a number';
  if (type === 'object') return 'an object';
  if (type === 'array') return 'an array';
  return 'a string';
}

/** Laravel's length messages; `failed` says which limit the value broke (a too-short value is not "greater than"). */
function lengthMessage(f: string, schema: Record<string, unknown>, failed: string): string {
  const min = schema.minLength as number | undefined;
  const max = schema.maxLength as number | undefined;
  if (min !== undefined && max !== undefined) {
    if (min === max) return `${f} must be ${min} characters.`;
    if (min > 1) return `${f} must be between ${min} and ${max} characters.`;
  }
  if (failed === 'maxLength' && max !== undefined) return `${f} must not be greater than ${max} characters.`;
  return min === 1 ? `${f} must not be empty.` : `${f} must be at least ${min} characters.`;
}

/**
 * Plain JSON Schema validation for the sandbox's own files (fixtures, scenarios): every failure
 * as `path: rule`, e.g. `/merchants/0/email: must match format "email"`. `dataKeys`: the document
 * is a record whose keys are data (a trace keeps request headers by name: a client may send a
 * `constructor` header), read and never merged, so a __proto__-like key is not refused.
 */
export function schemaErrors(schema: TSchema, value: unknown, options: { dataKeys?: boolean } = {}): string[] | null {
  const forbidden = options.dataKeys === true ? null : forbiddenKeyPath(value);
  if (forbidden) return [`/${forbidden.join('/')}: ${FORBIDDEN_KEY_RULE}`];
  let check = compiledFiles.get(schema);
  if (!check) compiledFiles.set(schema, (check = fileAjv.compile(schema)));
  if (check(value)) return null;
  return (check.errors ?? [])
    .filter((e) => e.keyword !== 'if')
    .map((e) => {
      const path = e.keyword === 'required' ? `${e.instancePath}/${String(e.params.missingProperty)}` : e.instancePath;
      const rule =
        e.keyword === 'required'
          ? 'is required'
          : e.keyword === 'additionalProperties'
            ? `unknown field "${String(e.params.additionalProperty)}" (the fields here: ${Object.keys(((e.parentSchema ?? {}) as TSchema).properties ?? {}).join(', ') || 'none'})`
            : e.keyword === 'enum'
              ? `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`
              : e.keyword === 'pattern' && typeof (e.parentSchema as Record<string, unknown> | undefined)?.['x-message'] === 'string'
                ? String((e.parentSchema as Record<string, unknown>)['x-message'])
                : (e.message ?? e.keyword);
      return `${path || '/'}: ${rule}`;
    });
}
