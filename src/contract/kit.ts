import { type TSchema, type TUnsafe, Type } from '@sinclair/typebox';

/** Schema building blocks and value lists shared by every schema file (requests, responses, files). */

/** A string that is one of `values` (a plain JSON Schema `enum`, typed as their union). */
export function StringEnum<T extends string>(values: readonly T[], options: Record<string, unknown> = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** An amount in rupees: 0 or more, at most two decimals. */
export const Rupees = (extra: Record<string, unknown> = {}) => Type.Number({ minimum: 0, 'x-decimals': 2, ...extra });
