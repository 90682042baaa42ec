import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { StoreFileError } from './file-errors.js';
import type { State } from './state.js';

/**
 * The data file's top level: every collection present and of its type (records by id are
 * objects of objects, not arrays), the counters whole numbers. The records themselves are the
 * sandbox's own writing and are not checked one by one (a 100k-payout file opens in the time
 * its JSON takes to parse). A file that fails this is not opened: start-up stops naming the field.
 */
const records = (of: TSchema = Type.Object({})) => Type.Record(Type.String(), of);
const count = Type.Integer({ minimum: 0 });

const DocumentSchema = Type.Object({
  schema_version: Type.Literal(1),
  log_generation: Type.Optional(count),
  merchants: records(),
  accounts: records(),
  beneficiaries: records(),
  payouts: records(),
  checkout_transactions: records(),
  verifications: records(),
  aadhaar_otps: records(),
  clock: Type.Object({ now: Type.Union([Type.Number(), Type.Null()]) }),
  webhook_deliveries: records(),
  webhook_seq: count,
  scheduler: Type.Object({ seq: count, items: records() }),
  coverage: Type.Optional(records(records(Type.Number()))),
  merchant_clocks: Type.Optional(records()),
  origins: Type.Optional(records()),
});

let checker: ReturnType<typeof TypeCompiler.Compile<typeof DocumentSchema>> | null = null;

/** What a value read from the data file is: a State, or a StoreFileError naming the file and the first wrong field. */
export function checkDocument(path: string, value: unknown): State {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new StoreFileError(`${path}: not a payout-sandbox data file (the document is ${what}, not an object); see README "Data file and change log"`);
  }
  const version = (value as { schema_version?: unknown }).schema_version;
  if (version !== 1) {
    throw new StoreFileError(`${path}: not a payout-sandbox data file of this version (schema_version is ${JSON.stringify(version) ?? 'missing'}; this sandbox reads 1)`);
  }
  checker ??= TypeCompiler.Compile(DocumentSchema);
  const error = checker.Errors(value).First();
  if (error) {
    const field = error.path === '' ? 'the document' : error.path;
    throw new StoreFileError(`${path}: not a payout-sandbox data file: ${field}: ${error.message.toLowerCase()}; see README "Data file and change log"`);
  }
  return value as unknown as State;
}
