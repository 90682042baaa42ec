import { open, readFile } from 'node:fs/promises';
import { COLLECTIONS, type Collection, collectionOf } from './collections.js';
import { fsProblem, refuseSpecialFile, StoreFileError, StoreWriteError, writeError } from './file-errors.js';
import type { State } from './state.js';

/**
 * The change log beside the data file (JSON Lines, `<data>.log`), as Redis's AOF beside its RDB
 * file: one line per written batch, `{"g":generation,"n":line,"s":[webhook_seq,scheduler_seq,clock_now],"c":[changes]}`,
 * each change `[collection, id, record]` (record null: removed). A record whose list only grows
 * (GROWING: an account's ledger, a page of review facts) is written as a delta:
 * `[collection, id, record without the list, from, entries]`: the entries from index `from` on.
 * A line belongs to the document whose `log_generation` is its `g`, and is its generation's `n`-th
 * line (from 1; absent in logs of earlier versions): a line removed, repeated or moved by hand
 * stops the replay instead of being applied in the wrong order.
 */

export type Change = [Collection, string, unknown] | [Collection, string, unknown, number, unknown[]];

/** The collections whose records carry a list that only grows, and its field: the log writes what was added. */
export const GROWING: Partial<Record<Collection, string>> = { accounts: 'ledger', review_facts: 'facts' };

/** The growing list of a record of collection `c` (undefined: not a growing collection, or a record of an older version without it). */
export function grownList(c: Collection, record: unknown): unknown[] | undefined {
  const field = GROWING[c];
  const list = field === undefined ? undefined : (record as Record<string, unknown>)[field];
  return Array.isArray(list) ? list : undefined;
}

export interface Batch {
  g: number;
  /** Its place among its generation's lines, from 1 (absent in logs of earlier versions). */
  n?: number;
  s: [number, number, number | null];
  c: Change[];
}

/** The scalars every batch carries (sequence counters and the sandbox clock). */
export function scalarsOf(state: State): Batch['s'] {
  return [state.webhook_seq, state.scheduler.seq, state.clock.now];
}

/** A batch's change of one record: as it is now, or removed; a growing one with its list from `from`. */
export function changeOf(state: State, c: Collection, id: string, from: number): Change {
  const record = Object.hasOwn(collectionOf(state, c), id) ? collectionOf(state, c)[id] : undefined;
  if (record === undefined) return [c, id, null];
  const list = grownList(c, record);
  if (list === undefined) return [c, id, record];
  return [c, id, { ...(record as object), [GROWING[c] as string]: undefined }, from, list.slice(from)];
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
      const field = GROWING[c];
      if (field === undefined) throw new Error(`a delta of ${c}, whose records do not grow`);
      const before = (target[id] as Record<string, unknown[]> | undefined)?.[field] ?? [];
      target[id] = { ...(record as object), [field]: before.slice(0, change[3]).concat(change[4]) };
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
export async function replayLog(path: string, state: State, notices: string[] = []): Promise<Replayed> {
  await refuseSpecialFile(path, 'change log');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { applied: 0, stale: 0, torn: 0, bytes: 0 };
    throw new StoreFileError(`${path}: cannot read the change log: ${fsProblem(err)}`);
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
      throw new StoreFileError(`${where}: the change log has a damaged line (${(err as Error).message}); see docs/operations.md "Data file and change log"`);
    }
    if (typeof batch?.g !== 'number' || !Array.isArray(batch.c) || !Array.isArray(batch.s))
      throw new StoreFileError(`${where}: not a change-log line of this version`);
    if (batch.g < generation) {
      result.stale += 1;
      return;
    }
    if (batch.g > generation)
      throw new StoreFileError(
        `${where}: the change log is newer (generation ${batch.g}) than the data file (${generation}): the data file was replaced; restore the matching one`,
      );
    const next = result.applied + 1;
    if (batch.n !== undefined && batch.n !== next)
      throw new StoreFileError(
        `${where}: the change log's lines are not as they were written (this is line ${batch.n} of its generation, line ${next} was next): ` +
          `lines were ${batch.n > next ? 'removed before it' : 'repeated or moved'}. Restore the data file and its log from a backup; see docs/operations.md "If start-up reports a damaged file"`,
      );
    try {
      applyBatch(state, batch);
    } catch (err) {
      throw new StoreFileError(`${where}: ${(err as Error).message}`);
    }
    result.applied += 1;
  });
  if (torn > 0) {
    // Certain only with fsync on: a line is acknowledged after it is whole on disk. Under
    // --no-fsync a power loss can cut a line that was acknowledged.
    notices.push(
      `${path}: the last change-log line was cut short (${torn} bytes: a stop while it was being written); it is left out, and cut off before the next write; everything before it is kept. ` +
        'With fsync on (the default) nothing in it had been acknowledged; if the sandbox ran with --no-fsync, requests in it may have been answered.',
    );
  }
  return result;
}

/** What the log needs of an open file (a FileHandle; a test double stands in for one to make writes fail). */
export interface LogHandle {
  write(buffer: Buffer, offset: number, length: number): Promise<{ bytesWritten: number }>;
  datasync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

export type OpenLogHandle = (path: string) => Promise<LogHandle>;

/** Made readable by its owner alone when it is made (it holds credentials too, as the document does). */
export const openLogHandle: OpenLogHandle = (path) => open(path, 'a', 0o600);

/**
 * The open log: appends (with fdatasync when asked) and starts afresh after a compaction. An
 * append is whole or not at all: a short write is written on until the line is complete; if that
 * fails (a full disk) the file is cut back to its last whole line and the append fails, so a
 * fragment never stays in the middle of the log.
 */
export class LogFile {
  /** A failed append left bytes past `bytes` that could not be cut off yet: cut them before the next. */
  private ragged = false;

  private constructor(
    private readonly path: string,
    private readonly handle: LogHandle,
    public bytes: number,
  ) {}

  /** `ragged`: the file holds more than `bytes` (a torn last line), cut off before the first append. */
  static async open(path: string, bytes: number, openHandle: OpenLogHandle = openLogHandle, ragged = false): Promise<LogFile> {
    let log: LogFile;
    try {
      log = new LogFile(path, await openHandle(path), bytes);
    } catch (err) {
      throw new StoreFileError(`${path}: cannot open the change log for writing: ${fsProblem(err)}`);
    }
    log.ragged = ragged;
    return log;
  }

  async append(text: string, sync: boolean): Promise<void> {
    const buf = Buffer.from(text);
    try {
      if (this.ragged) await this.cutBack();
      let done = 0;
      while (done < buf.length) {
        const { bytesWritten } = await this.handle.write(buf, done, buf.length - done);
        // A write that makes no progress will not make any by being repeated at once.
        if (!(bytesWritten > 0)) throw new StoreWriteError(`${this.path}: a write stopped after ${done} of ${buf.length} bytes (the disk is full?)`, 'ENOSPC');
        done += bytesWritten;
      }
      if (sync) await this.handle.datasync();
    } catch (err) {
      this.ragged = true;
      await this.cutBack().catch(() => undefined);
      throw writeError(err, `${this.path}: cannot append to the change log`);
    }
    this.bytes += buf.length;
  }

  /** Cuts the file back to its last whole line (what `bytes` counts). */
  private async cutBack(): Promise<void> {
    await this.handle.truncate(this.bytes);
    this.ragged = false;
  }

  async reset(sync: boolean): Promise<void> {
    await this.handle.truncate(0);
    this.bytes = 0;
    this.ragged = false;
    if (sync) await this.handle.datasync();
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}
