import { open, readFile, type FileHandle } from 'node:fs/promises';
import { COLLECTIONS, collectionOf, type Collection } from './collections.js';
import type { Account, State } from './state.js';

/**
 * The change log beside the data file (JSON Lines, `<data>.log`), as Redis's AOF beside its RDB
 * file: one line per written batch, `{"g":generation,"s":[webhook_seq,scheduler_seq,clock_now],"c":[changes]}`,
 * each change `[collection, id, record]` (record null: removed). An account's ledger is written
 * as a delta: `[“accounts”, no, account without its ledger, from, entries]`: the entries from
 * index `from` on. A line belongs to the document whose `log_generation` is its `g`.
 */

export type Change = [Collection, string, unknown] | ['accounts', string, unknown, number, unknown[]];

export interface Batch {
  g: number;
  s: [number, number, number | null];
  c: Change[];
}

export class StoreFileError extends Error {}

/** The scalars every batch carries (sequence counters and the sandbox clock). */
export function scalarsOf(state: State): Batch['s'] {
  return [state.webhook_seq, state.scheduler.seq, state.clock.now];
}

/** A batch's change of one record: as it is now, or removed; an account with its ledger from `ledgerFrom`. */
export function changeOf(state: State, c: Collection, id: string, ledgerFrom: number): Change {
  const record = Object.hasOwn(collectionOf(state, c), id) ? collectionOf(state, c)[id] : undefined;
  if (record === undefined) return [c, id, null];
  if (c !== 'accounts') return [c, id, record];
  const a = record as Account;
  return ['accounts', id, { ...a, ledger: undefined }, ledgerFrom, a.ledger.slice(ledgerFrom)];
}

/** Applies one batch to the state read from the document. */
function applyBatch(state: State, batch: Batch): void {
  [state.webhook_seq, state.scheduler.seq, state.clock.now] = batch.s;
  for (const change of batch.c) {
    const [c, id, record] = change;
    if (!Object.hasOwn(COLLECTIONS, c)) throw new Error(`unknown collection ${String(c)}`);
    const target = collectionOf(state, c);
    if (record === null) {
      delete target[id];
    } else if (change.length === 5) {
      const before = target[id] as Account | undefined;
      const ledger = (before?.ledger ?? []).slice(0, change[3]).concat(change[4] as Account['ledger']);
      target[id] = { ...(record as Account), ledger };
    } else {
      target[id] = record;
    }
  }
}

export interface Replayed {
  /** Batches applied. */
  applied: number;
  /** Lines of an older generation skipped (a compaction stopped after writing its document). */
  stale: number;
  /** Bytes of a torn last line cut off, or 0. */
  torn: number;
  /** The log's length after any cut. */
  bytes: number;
}

/**
 * Replays the log onto the state read from the document. A torn last line (a crash during an
 * append: no newline at its end) is cut off the file with a warning; anything else wrong stops
 * the opening with the file and line named.
 */
export async function replayLog(path: string, state: State): Promise<Replayed> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { applied: 0, stale: 0, torn: 0, bytes: 0 };
    throw err;
  }
  const complete = text.lastIndexOf('\n') + 1;
  const torn = Buffer.byteLength(text.slice(complete));
  const generation = state.log_generation ?? 0;
  const result: Replayed = { applied: 0, stale: 0, torn, bytes: Buffer.byteLength(text) - torn };
  const lines = text.slice(0, complete).split('\n');
  lines.pop();
  lines.forEach((line, i) => {
    const where = `${path}:${i + 1}`;
    let batch: Batch;
    try {
      batch = JSON.parse(line) as Batch;
    } catch (err) {
      throw new StoreFileError(`${where}: the change log has a damaged line (${(err as Error).message}); see README "Data file and change log"`);
    }
    if (typeof batch?.g !== 'number' || !Array.isArray(batch.c) || !Array.isArray(batch.s)) throw new StoreFileError(`${where}: not a change-log line of this version`);
    if (batch.g < generation) {
      result.stale += 1;
      return;
    }
    if (batch.g > generation) throw new StoreFileError(`${where}: the change log is newer (generation ${batch.g}) than the data file (${generation}): the data file was replaced; restore the matching one`);
    try {
      applyBatch(state, batch);
    } catch (err) {
      throw new StoreFileError(`${where}: ${(err as Error).message}`);
    }
    result.applied += 1;
  });
  if (torn > 0) {
    const handle = await open(path, 'r+');
    await handle.truncate(result.bytes);
    await handle.close();
    process.stderr.write(`payout-sandbox: ${path}: the last change-log line was cut short (a crash while writing; ${torn} bytes, never acknowledged); removed it, everything before it is kept\n`);
  }
  return result;
}

/** The open log: appends (with fdatasync when asked) and starts afresh after a compaction. */
export class LogFile {
  private constructor(
    private readonly handle: FileHandle,
    public bytes: number,
  ) {}

  static async open(path: string, bytes: number): Promise<LogFile> {
    return new LogFile(await open(path, 'a'), bytes);
  }

  async append(text: string, sync: boolean): Promise<void> {
    const buf = Buffer.from(text);
    await this.handle.write(buf);
    this.bytes += buf.length;
    if (sync) await this.handle.datasync();
  }

  async reset(sync: boolean): Promise<void> {
    await this.handle.truncate(0);
    this.bytes = 0;
    if (sync) await this.handle.datasync();
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}
