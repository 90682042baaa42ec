import type { Static, TSchema } from '@sinclair/typebox';
import { compile, validate } from '../contract/validate.js';
import { RequestError } from '../errors.js';

/** Schemas of parsers made but not yet compiled. */
const uncompiled = new Set<TSchema>();

/**
 * A parser for one request schema. The schema is compiled on first use, or earlier by
 * precompileParsers() (which the CLI and startSandbox() run right after they are ready), so
 * compiling never delays start-up. The first failing field becomes envelope A 400.
 */
export function inputParser<S extends TSchema>(schema: S): (input: unknown) => Static<S> {
  uncompiled.add(schema);
  return (input) => {
    const result = validate(schema, input);
    if (!result.ok) throw new RequestError(400, result.message);
    return result.value;
  };
}

/**
 * Compiles every parser's schema, one per turn of the event loop, so a request that arrives
 * meanwhile waits for one schema at most (the CLI and startSandbox() start it once listening).
 */
export function precompileParsers(): void {
  const next = uncompiled.values().next();
  if (next.done) return;
  uncompiled.delete(next.value);
  compile(next.value);
  setImmediate(precompileParsers);
}
