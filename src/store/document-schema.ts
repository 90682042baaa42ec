import { type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { StoreFileError } from './file-errors.js';
import type { State } from './state.js';

/**
 * The data file's top level: every collection present and of its type (records by id are
 * objects of objects, not arrays), the counters whole numbers. Of each record, only the fields
 * the start reads (ids, ledgers, the queue) are checked: the records are the sandbox's own
 * writing, and a damaged one is named rather than crashing the start. A file that fails this is
 * not opened: start-up stops naming the file and the field.
 */
const records = (of: TSchema = Type.Object({})) => Type.Record(Type.String(), of);
const count = Type.Integer({ minimum: 0 });

const id = Type.String({ minLength: 1 });

const DocumentSchema = Type.Object({
  schema_version: Type.Literal(1),
  log_generation: Type.Optional(count),
  // What the start reads of each record (indexes, ledgers, the queue) is checked too.
  merchants: records(Type.Object({ merchant_id: id, email: Type.String() })),
  accounts: records(Type.Object({ account_no: id, merchant_id: id, ledger: Type.Array(Type.Object({})) })),
  beneficiaries: records(),
  payouts: records(Type.Object({ ref_id: id, merchant_id: id, client_ref_id: Type.String() })),
  checkout_transactions: records(),
  verifications: records(),
  aadhaar_otps: records(),
  clock: Type.Object({ now: Type.Union([Type.Number(), Type.Null()]) }),
  webhook_deliveries: records(),
  webhook_seq: count,
  scheduler: Type.Object({ seq: count, items: records(Type.Object({ id, due: Type.Number(), kind: Type.String() })) }),
  coverage: Type.Optional(records(records(Type.Number()))),
  merchant_clocks: Type.Optional(records()),
  origins: Type.Optional(records()),
  fault_counts: Type.Optional(records(records(Type.Number()))),
  chaos: Type.Optional(records()),
  outages: Type.Optional(records()),
  review_facts: Type.Optional(records()),
});

let checker: ReturnType<typeof TypeCompiler.Compile<typeof DocumentSchema>> | null = null;

/** What a value read from the data file is: a State, or a StoreFileError naming the file and the first wrong field. */
export function checkDocument(path: string, value: unknown): State {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new StoreFileError(
      `${path}: not a payout-sandbox data file (the document is ${what}, not an object); see docs/operations.md "Data file and change log"`,
    );
  }
  const version = (value as { schema_version?: unknown }).schema_version;
  if (version !== 1) {
    throw new StoreFileError(
      `${path}: not a payout-sandbox data file of this version (schema_version is ${JSON.stringify(version) ?? 'missing'}; this sandbox reads 1)`,
    );
  }
  checker ??= TypeCompiler.Compile(DocumentSchema);
  const error = checker.Errors(value).First();
  if (error) {
    const field = error.path === '' ? 'the document' : error.path;
    throw new StoreFileError(
      `${path}: not a payout-sandbox data file: ${field}: ${error.message.toLowerCase()}; see docs/operations.md "Data file and change log"`,
    );
  }
  return value as unknown as State;
}
