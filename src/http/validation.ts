import type { Static, TSchema } from '@sinclair/typebox';
import { compile, validate } from '../contract/validate.js';
import { RequestError } from '../errors.js';

/**
 * A parser for one request schema, compiled now (when the router is built) rather than on the
 * first request. The first failing field becomes envelope A 400.
 */
export function inputParser<S extends TSchema>(schema: S): (input: unknown) => Static<S> {
  compile(schema);
  return (input) => {
    const result = validate(schema, input);
    if (!result.ok) throw new RequestError(400, result.message);
    return result.value;
  };
}
