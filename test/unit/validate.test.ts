import { Type } from '@sinclair/typebox';
import { CreateMerchantBody, PayoutsQuery } from '../../src/admin/inputs.js';
import { Nullable, StringEnum } from '../../src/contract/kit.js';
import { InitializePayoutRequest, VerifyRequest } from '../../src/contract/schemas.js';
import { attributeName, forbiddenKeyPath, schemaErrors, validate } from '../../src/contract/validate.js';

/** Requests validated as a Laravel back end does; `strict`: the control API's reading. */

const message = (schema: Parameters<typeof validate>[0], input: unknown, strict = false) => {
  const r = validate(schema, input, { strict });
  if (r.ok) throw new Error(`accepted: ${JSON.stringify(r.value)}`);
  return r.message;
};
const value = (schema: Parameters<typeof validate>[0], input: unknown, strict = false) => {
  const r = validate(schema, input, { strict });
  if (!r.ok) throw new Error(`refused: ${r.message}`);
  return r.value;
};

const Lengths = Type.Object({
  client_ref_id: Type.String({ minLength: 5, maxLength: 30 }),
  code: Type.Optional(Type.String({ minLength: 4, maxLength: 4 })),
  note: Type.Optional(Type.String({ maxLength: 10 })),
  nick: Type.Optional(Type.String({ minLength: 3 })),
  tag: Type.Optional(Type.String({ minLength: 1 })),
});

const Kinds = Type.Object({
  name: Type.Optional(Type.String()),
  amount: Type.Optional(Type.Number({ 'x-decimals': 2 })),
  count: Type.Optional(Type.Integer()),
  meta: Type.Optional(Type.Object({ account_no: Type.String(), label: Type.Optional(Type.String({ maxLength: 3 })) })),
  tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
  method: Type.Optional(StringEnum(['1001', '1002', '1003'] as const)),
  transfer_type: Type.Optional(Type.Literal('BANK')),
  email: Type.Optional(Type.String({ format: 'email' })),
  day: Type.Optional(Type.String({ format: 'date' })),
  dob: Type.Optional(Type.String({ format: 'date', 'x-message': 'must be a valid date in the format YYYY-MM-DD.' })),
  ifsc: Type.Optional(Type.String({ pattern: '^[A-Z]{4}0[A-Z0-9]{6}$', 'x-message': 'must be an IFSC.' })),
  plain_pattern: Type.Optional(Type.String({ pattern: '^x+$' })),
});

const Bounds = Type.Object(
  {
    at_least: Type.Optional(Type.Number({ minimum: 1 })),
    above: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    at_most: Type.Optional(Type.Number({ maximum: 1000 })),
    below: Type.Optional(Type.Number({ exclusiveMaximum: 10 })),
  },
  { additionalProperties: false },
);

const Closed = Type.Object(
  {
    status: StringEnum(['Active', 'Inactive'] as const),
    webhook_url: Type.Optional(Nullable(Type.String({ pattern: '^https?://\\S+$', 'x-message': 'must be an http or https URL.' }))),
    label: Type.Optional(Type.String({ minLength: 2, maxLength: 10 })),
    kind: Type.Optional(Type.Literal('BANK')),
    clock: Type.Optional(Type.Object({ mode: Type.Optional(Type.String()), start: Type.Optional(Type.String()) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

describe('the body itself', () => {
  test.each([[[]], ['text'], [42], [true], [[{ a: 1 }]]])('%p is refused as no object', (input) => {
    expect(message(Kinds, input)).toBe('The request body must be a JSON object or a form.');
    expect(message(Kinds, input, true)).toBe('The request body must be a JSON object or a form.');
  });

  test('no body (undefined or null) is an empty one', () => {
    expect(value(Kinds, undefined)).toEqual({});
    expect(value(Kinds, null)).toEqual({});
    expect(message(Lengths, null)).toBe('The client ref id field is required.');
  });
});

describe('Laravel messages', () => {
  test('required, with underscores as spaces', () => {
    expect(message(Lengths, {})).toBe('The client ref id field is required.');
  });

  test.each([
    [{ client_ref_id: 'abcd' }, 'The client ref id field must be between 5 and 30 characters.'],
    [{ client_ref_id: 'a'.repeat(31) }, 'The client ref id field must be between 5 and 30 characters.'],
    [{ client_ref_id: 'abcde', code: 'abc' }, 'The code field must be 4 characters.'],
    [{ client_ref_id: 'abcde', code: 'abcde' }, 'The code field must be 4 characters.'],
    [{ client_ref_id: 'abcde', note: 'x'.repeat(11) }, 'The note field must not be greater than 10 characters.'],
    [{ client_ref_id: 'abcde', nick: 'ab' }, 'The nick field must be at least 3 characters.'],
  ])('lengths: %p', (input, text) => {
    expect(message(Lengths, input)).toBe(text);
  });

  test('lengths at the limits are accepted', () => {
    expect(value(Lengths, { client_ref_id: 'abcde', code: 'abcd', note: 'x'.repeat(10), nick: 'abc' })).toEqual({
      client_ref_id: 'abcde',
      code: 'abcd',
      note: 'x'.repeat(10),
      nick: 'abc',
    });
    expect(value(Lengths, { client_ref_id: 'a'.repeat(30) })).toEqual({ client_ref_id: 'a'.repeat(30) });
  });

  test.each([
    [{ name: true }, 'The name field must be a string.'],
    [{ name: { a: 1 } }, 'The name field must be a string.'],
    [{ amount: 'ten' }, 'The amount field must be a number.'],
    [{ amount: true }, 'The amount field must be a number.'],
    [{ count: 'many' }, 'The count field must be a number.'],
    [{ meta: 'x' }, 'The meta field must be an object.'],
    [{ meta: [1] }, 'The meta field must be an object.'],
    [{ tags: 'a,b' }, 'The tags field must be an array.'],
  ])('types: %p', (input, text) => {
    expect(message(Kinds, input)).toBe(text);
  });

  test.each([
    [{ amount: 1.234 }, 'The amount field must have 0-2 decimal places.'],
    [{ amount: '10.001' }, 'The amount field must have 0-2 decimal places.'],
    [{ amount: 1e-7 }, 'The amount field must have 0-2 decimal places.'],
    [{ method: '1004' }, 'The selected method is invalid.'],
    [{ method: 1001.5 }, 'The selected method is invalid.'],
    [{ transfer_type: 'UPI' }, 'The selected transfer type is invalid.'],
    [{ email: 'not-an-email' }, 'The email field must be a valid email address.'],
    [{ day: '2026-02-30' }, 'The day field format is invalid.'],
    [{ dob: '01/01/2000' }, 'The dob field must be a valid date in the format YYYY-MM-DD.'],
    [{ ifsc: 'hdfc0001234' }, 'The ifsc field must be an IFSC.'],
    [{ plain_pattern: 'xy' }, 'The plain pattern field format is invalid.'],
    [{ tags: ['a', 'b', 'c'] }, 'The tags field is invalid.'],
    [{ tags: ['a', 7] }, 'The tags.1 field must be a string.'],
  ])('values: %p', (input, text) => {
    expect(message(Kinds, input)).toBe(text);
  });

  test('decimals within the limit are accepted', () => {
    expect(value(Kinds, { amount: 10.5 })).toEqual({ amount: 10.5 });
    expect(value(Kinds, { amount: 10.25 })).toEqual({ amount: 10.25 });
    expect(value(Kinds, { amount: 100 })).toEqual({ amount: 100 });
  });

  test('a nested field is named with a dot', () => {
    expect(message(Kinds, { meta: {} })).toBe('The meta.account no field is required.');
    expect(message(Kinds, { meta: { account_no: false, label: 'x' } })).toBe('The meta.account no field must be a string.');
    expect(message(Kinds, { meta: { account_no: '1', label: 'long' } })).toBe('The meta.label field must not be greater than 3 characters.');
  });

  test('bounds: "is invalid." as the reference words it', () => {
    expect(message(Bounds, { at_least: 0 })).toBe('The at least field is invalid.');
    expect(message(Bounds, { above: 0 })).toBe('The above field is invalid.');
    expect(message(Bounds, { at_most: 1000.01 })).toBe('The at most field is invalid.');
    expect(message(Bounds, { below: 10 })).toBe('The below field is invalid.');
    expect(value(Bounds, { at_least: 1, above: 0.01, at_most: 1000, below: 9.99 })).toEqual({ at_least: 1, above: 0.01, at_most: 1000, below: 9.99 });
  });

  test('a field nothing can be said about', () => {
    expect(message(Type.Object({ nothing: Type.Null() }), { nothing: 5 })).toBe('The given data was invalid.');
  });
});

describe('which failure is reported', () => {
  test("the first failing field in the schema's order, not the input's", () => {
    const S = Type.Object({ a: Type.String({ minLength: 3 }), b: Type.Number(), c: Type.String() });
    expect(message(S, { c: 1, b: 'x', a: 'xy' })).toBe('The a field must be at least 3 characters.');
    expect(message(S, { c: {}, b: 'x' })).toBe('The a field is required.');
    expect(message(S, { a: 'xyz', c: {} })).toBe('The b field is required.');
    expect(message(S, { a: 'xyz', b: 1, c: {} })).toBe('The c field must be a string.');
  });

  test('within one field, a type error before the rules of the type', () => {
    const S = Type.Object({ code: Type.String({ minLength: 4, pattern: '^[0-9]+$' }) });
    expect(message(S, { code: 'ab' })).toBe('The code field must be at least 4 characters.');
    expect(message(S, { code: [] })).toBe('The code field must be a string.');
  });

  test("a nullable field's own union failure says less than the branch that failed", () => {
    expect(message(Closed, { status: 'Active', webhook_url: 'ftp://x' }, true)).toBe('The webhook url field must be an http or https URL.');
    expect(message(Closed, { status: 'Active', webhook_url: 5 }, true)).toBe('The webhook url field must be a string.');
  });

  test('required when: a conditional requirement is worded with its condition', () => {
    const base = {
      client_ref_id: 'CREF000001',
      transfer_type: 'BANK',
      amount: 100,
      payment_method: '1001',
      debit_from: 'D'.repeat(20),
      purpose: 'SALARY',
      remarks: 'x',
    };
    expect(message(InitializePayoutRequest, base)).toBe('The beneficiary email field is required when beneficiary id is not present.');
    expect(value(InitializePayoutRequest, { ...base, beneficiary_id: 'B'.repeat(20) })).toEqual({ ...base, beneficiary_id: 'B'.repeat(20) });
  });

  test('required with: a dependent field is worded with the field that needs it, nested names with dots', () => {
    const base = { debit_from: 'D'.repeat(20), verification_type: 'AADHAAR' };
    expect(message(VerifyRequest, base)).toBe('The aadhaar field is required when verification type is AADHAAR.');
    expect(message(VerifyRequest, { ...base, aadhaar: { aadhaar_number: '123456789012', otp: '123456' } })).toBe(
      'The aadhaar.ref id field is required when aadhaar.otp is present.',
    );
    expect(message(VerifyRequest, { ...base, aadhaar: { aadhaar_number: '123456789012', ref_id: 'R1' } })).toBe(
      'The aadhaar.otp field is required when aadhaar.ref id is present.',
    );
  });
});

describe('normalization', () => {
  test('strings are trimmed', () => {
    expect(value(Kinds, { name: '  Ann Lee \t\n' })).toEqual({ name: 'Ann Lee' });
    expect(message(Lengths, { client_ref_id: '  abcd  ' })).toBe('The client ref id field must be between 5 and 30 characters.');
  });

  test('an empty string, blanks or null is a field not given', () => {
    expect(value(Kinds, { name: '', email: '   ', amount: null })).toEqual({});
    expect(message(Lengths, { client_ref_id: '' })).toBe('The client ref id field is required.');
    expect(message(Lengths, { client_ref_id: '   ' })).toBe('The client ref id field is required.');
    expect(message(Lengths, { client_ref_id: null })).toBe('The client ref id field is required.');
  });

  test('a number given for a string field is read as its text', () => {
    expect(value(Kinds, { name: 123456789012 })).toEqual({ name: '123456789012' });
    expect(value(Kinds, { name: 1.5 })).toEqual({ name: '1.5' });
    expect(value(Kinds, { name: 0 })).toEqual({ name: '0' });
    expect(message(Kinds, { name: Number.POSITIVE_INFINITY })).toBe('The name field must be a string.');
  });

  test('a numeric string given for a number field is read as its value (as form posts send)', () => {
    expect(value(Kinds, { amount: '12.50', count: '42' })).toEqual({ amount: 12.5, count: 42 });
    expect(value(Kinds, { amount: ' -3 ' })).toEqual({ amount: -3 });
    expect(value(Kinds, { amount: '007' })).toEqual({ amount: 7 });
  });

  test.each(['1e3', '.5', '5.', '0x10', '1,000', '+5', '12 34', 'NaN', 'Infinity'])('%p is not a numeric string', (text) => {
    expect(message(Kinds, { amount: text })).toBe('The amount field must be a number.');
  });

  test('objects are normalized inside; arrays are left as they are', () => {
    expect(value(Kinds, { meta: { account_no: 1234, label: '  ab ' }, tags: [' a '] })).toEqual({ meta: { account_no: '1234', label: 'ab' }, tags: [' a '] });
    expect(value(Kinds, { meta: { account_no: ' 9 ', label: '' } })).toEqual({ meta: { account_no: '9' } });
  });

  test('fields the schema does not name pass through (trimmed) when the schema is open', () => {
    expect(value(Kinds, { extra: '  x ', other: 5 })).toEqual({ extra: 'x', other: 5 });
  });

  test('__proto__ in a parsed body of the emulated API is dropped and reaches no prototype; the control API (strict) refuses it', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "name": "n"}');
    const v = value(Kinds, input) as Record<string, unknown>;
    expect(v).toEqual({ name: 'n' });
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(message(Closed, JSON.parse('{"__proto__": {"x": 1}, "status": "Active"}'), true)).toBe(
      'The __proto__ field is not allowed: __proto__, constructor and prototype are never field names.',
    );
  });

  test('the input is not changed', () => {
    const input = { name: '  a  ', amount: '5' };
    value(Kinds, input);
    expect(input).toEqual({ name: '  a  ', amount: '5' });
  });
});

describe('strict (the control API)', () => {
  test('an unknown field is refused first, naming it and the fields the request takes', () => {
    expect(message(Closed, { status: 'Active', colour: 'red' }, true)).toBe(
      'The colour field is not one this request takes (it takes: status, webhook_url, label, kind, clock).',
    );
    // Even before a missing required field.
    expect(message(Closed, { colour: 'red' }, true)).toBe(
      'The colour field is not one this request takes (it takes: status, webhook_url, label, kind, clock).',
    );
    expect(message(Closed, { status: 'Active', clock: { mode: 'manual', speed: 2 } }, true)).toBe(
      'The clock.speed field is not one this request takes (it takes: mode, start).',
    );
    expect(message(Type.Object({}, { additionalProperties: false }), { a: 1 }, true)).toBe('The a field is not one this request takes (it takes: no fields).');
  });

  test('a value outside a list names the allowed values', () => {
    expect(message(Closed, { status: 'Paused' }, true)).toBe('The status field must be one of Active, Inactive.');
    expect(message(Closed, { status: 'Active', kind: 'UPI' }, true)).toBe('The kind field must be BANK.');
    expect(message(Closed, { status: 'Paused' })).toBe('The selected status is invalid.');
  });

  test('bounds are named', () => {
    expect(message(Bounds, { at_least: 0 }, true)).toBe('The at least field must be at least 1.');
    expect(message(Bounds, { above: 0 }, true)).toBe('The above field must be greater than 0.');
    expect(message(Bounds, { above: -1 }, true)).toBe('The above field must be greater than 0.');
    expect(message(Bounds, { at_most: 1001 }, true)).toBe('The at most field must be at most 1000.');
    expect(message(Bounds, { below: 10 }, true)).toBe('The below field must be less than 10.');
    expect(message(Bounds, { below: '11' }, true)).toBe('The below field must be less than 10.');
  });

  test('null, or an empty string, is a value for a nullable field: it clears it', () => {
    expect(value(Closed, { status: 'Active', webhook_url: null }, true)).toEqual({ status: 'Active', webhook_url: null });
    expect(value(Closed, { status: 'Active', webhook_url: '' }, true)).toEqual({ status: 'Active', webhook_url: null });
    expect(value(Closed, { status: 'Active', webhook_url: '   ' }, true)).toEqual({ status: 'Active', webhook_url: null });
    // Not strict: absent.
    expect(value(Closed, { status: 'Active', webhook_url: null })).toEqual({ status: 'Active' });
    expect(value(Closed, { status: 'Active', webhook_url: '' })).toEqual({ status: 'Active' });
  });

  test('null, or an empty string, for a field that is not nullable is a wrong value, not an absent one', () => {
    expect(message(Closed, { status: null }, true)).toBe('The status field must be a string.');
    expect(message(Closed, { status: '' }, true)).toBe('The status field must be one of Active, Inactive.');
    expect(message(Closed, { status: 'Active', label: '' }, true)).toBe('The label field must be between 2 and 10 characters.');
    expect(message(Closed, { status: 'Active', label: null }, true)).toBe('The label field must be a string.');
  });

  test('normalization as without strict: trimmed, numbers as text, numeric strings as numbers', () => {
    expect(value(Closed, { status: ' Active ', label: 12 }, true)).toEqual({ status: 'Active', label: '12' });
    expect(value(Bounds, { at_least: '2.5' }, true)).toEqual({ at_least: 2.5 });
  });
});

describe("the control API's schemas", () => {
  test('query strings: numbers read from text, lists and bounds named, unknown parameters named', () => {
    expect(value(PayoutsQuery, { status: 'Success', mode: '1002', limit: '50', cursor: '0' }, true)).toEqual({
      status: 'Success',
      mode: '1002',
      limit: 50,
      cursor: 0,
    });
    expect(message(PayoutsQuery, { limit: '0' }, true)).toBe('The limit field must be at least 1.');
    expect(message(PayoutsQuery, { limit: '201' }, true)).toBe('The limit field must be at most 200.');
    expect(message(PayoutsQuery, { status: 'Done' }, true)).toBe('The status field must be one of NEW, Pending, Success, Failed, Unknown.');
    expect(message(PayoutsQuery, { statu: 'Success' }, true)).toBe(
      'The statu field is not one this request takes (it takes: status, mode, van, limit, cursor).',
    );
  });

  test('a new merchant: nested names, decimals, formats', () => {
    expect(message(CreateMerchantBody, { clock: { mood: 'x' } }, true)).toBe('The clock.mood field is not one this request takes (it takes: mode, start).');
    expect(message(CreateMerchantBody, { fees: { '1001': '1.234' } }, true)).toBe('The fees.1001 field must have 0-2 decimal places.');
    expect(message(CreateMerchantBody, { email: 'nope' }, true)).toBe('The email field must be a valid email address.');
    expect(value(CreateMerchantBody, { webhook_url: '', balance: '100.50' }, true)).toEqual({ webhook_url: null, balance: 100.5 });
  });
});

test('attributeName: underscores as spaces, nested with dots', () => {
  expect(attributeName(['client_ref_id'])).toBe('client ref id');
  expect(attributeName(['bank', 'account_no'])).toBe('bank.account no');
  expect(attributeName([])).toBe('');
});

describe('schemaErrors (the sandbox’s own files)', () => {
  const File = Type.Object(
    {
      name: Type.String({ minLength: 1 }),
      kind: StringEnum(['a', 'b'] as const),
      items: Type.Optional(Type.Array(Type.Object({ n: Type.Integer() }, { additionalProperties: false }))),
    },
    { additionalProperties: false },
  );

  test('valid: null', () => {
    expect(schemaErrors(File, { name: 'x', kind: 'a', items: [{ n: 1 }] })).toBeNull();
  });

  test('every failure as path: rule, nothing normalized', () => {
    expect(schemaErrors(File, { kind: 'c', extra: 1, items: [{ n: 1.5, m: 2 }] })).toEqual([
      '/name: is required',
      '/: unknown field "extra" (the fields here: name, kind, items)',
      '/kind: must be one of a, b',
      '/items/0: unknown field "m" (the fields here: n)',
      '/items/0/n: must be integer',
    ]);
    expect(schemaErrors(File, { name: ' ', kind: 'a' })).toBeNull();
    expect(schemaErrors(File, { name: '', kind: 'a' })).toEqual(['/name: must NOT have fewer than 1 characters']);
  });

  test('a __proto__, constructor or prototype key is refused wherever it is, not dropped', () => {
    expect(schemaErrors(File, JSON.parse('{"name":"x","kind":"a","__proto__":{"polluted":true}}'))).toEqual([
      '/__proto__: is not allowed: __proto__, constructor and prototype are never field names',
    ]);
    expect(schemaErrors(File, { name: 'x', kind: 'a', items: [{ n: 1, constructor: 1 }] })).toEqual([
      '/items/0/constructor: is not allowed: __proto__, constructor and prototype are never field names',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('forbiddenKeyPath', () => {
  test('the first forbidden key, by path; null when there is none', () => {
    expect(forbiddenKeyPath({ a: [{ b: 1 }, JSON.parse('{"__proto__":1}')] })).toEqual(['a', '1', '__proto__']);
    expect(forbiddenKeyPath({ prototype: 1 })).toEqual(['prototype']);
    expect(forbiddenKeyPath({ a: { constructorName: 1, proto: 2 } })).toBeNull();
    expect(forbiddenKeyPath('x')).toBeNull();
  });

  test('a body nested 50,000 deep is walked without exhausting the stack', () => {
    const deep = JSON.parse(`${'['.repeat(50_000)}{"__proto__":1}${']'.repeat(50_000)}`);
    expect(forbiddenKeyPath(deep)?.at(-1)).toBe('__proto__');
  });

  test('a strict (control) body with one is refused naming it; the emulated API still ignores an unknown key', () => {
    const Body = Type.Object({ a: Type.Optional(Type.Object({}, { additionalProperties: true })) }, { additionalProperties: false });
    const strict = validate(Body, JSON.parse('{"a":{"b":{"__proto__":{"x":1}}}}'), { strict: true });
    expect(strict).toEqual({ ok: false, message: 'The a.b.__proto__ field is not allowed: __proto__, constructor and prototype are never field names.' });
    expect(validate(Type.Object({ n: Type.Optional(Type.String()) }), JSON.parse('{"__proto__":{"x":1}}')).ok).toBe(true);
  });
});

test('strict: an empty field is "must not be empty", not "greater than"; a whole-number field says so', async () => {
  const { Type } = await import('@sinclair/typebox');
  const { validate } = await import('../../src/contract/validate.js');
  const schema = Type.Object(
    { van: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })), limit: Type.Optional(Type.Integer({ minimum: 1 })) },
    { additionalProperties: false },
  );
  expect(validate(schema, { van: '' }, { strict: true })).toEqual({ ok: false, message: 'The van field must not be empty.' });
  expect(validate(schema, { van: 'x'.repeat(41) }, { strict: true })).toEqual({ ok: false, message: 'The van field must not be greater than 40 characters.' });
  expect(validate(schema, { limit: '1.5' }, { strict: true })).toEqual({ ok: false, message: 'The limit field must be a whole number.' });
});
