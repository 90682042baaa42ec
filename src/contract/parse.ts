import type { Static, TSchema } from '@sinclair/typebox';
import { MESSAGES, RequestError, refIdRequired } from '../errors.js';
import { compile, type ValidateOptions, validate } from './validate.js';

/**
 * Validation failures the reference words itself (its error table), by the validator's wording of
 * the same failure: Laravel's, which closes with a full stop the reference's message does not
 * have. Merchants match on the reference's text, so it is answered as the reference gives it.
 */
const REFERENCE_REFUSALS = new Map<string, () => RequestError>([[`${MESSAGES.refIdRequired}.`, refIdRequired]]);

/** Schemas of parsers made but not yet compiled. */
const uncompiled = new Set<TSchema>();

/**
 * A parser for one request schema. The schema is compiled on first use, or earlier by
 * precompileParsers() (which the CLI and startSandbox() run right after they are ready), so
 * compiling never delays start-up. The first failing field becomes a RequestError 400 (envelope
 * A on the emulated API, `{ error }` on the control API). `strict` is the control API's reading
 * (see validate()).
 */
export function inputParser<S extends TSchema>(schema: S, options: ValidateOptions = {}): (input: unknown) => Static<S> {
  uncompiled.add(schema);
  return (input) => {
    const result = validate(schema, input, options);
    if (!result.ok) throw REFERENCE_REFUSALS.get(result.message)?.() ?? new RequestError(400, result.message);
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
