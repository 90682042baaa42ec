import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Low } from 'lowdb';
import { LogFile, StoreFileError, changeOf, replayLog, scalarsOf, type Batch } from './change-log.js';
import type { Collection } from './collections.js';
import { DocumentFile, type CompactionHooks } from './document-file.js';
import type { Account, State } from './state.js';

export { StoreFileError } from './change-log.js';
export type { CompactionHooks } from './document-file.js';

/**
 * lowdb behind one interface: a JSON document with its change log, or memory only. Callers change
 * `state` synchronously (so a check and the change it guards can never interleave with another
 * request), tell each changed record (`changed`, through the Repo), and then await `persist()`,
 * which resolves once that change is on disk; only then is it acknowledged to the client.
 */
export interface Store {
  readonly kind: 'file' | 'memory';
  readonly path: string | null;
  /** The whole state; assigning it replaces everything (reset, snapshot restore): a compaction. */
  state: State;
  /** Resolves when everything changed so far is written. */
  persist(): Promise<void>;
  /** A record was added, changed or removed: the next persist writes it. */
  changed(c: Collection, id: string): void;
  /** Writes everything (a compaction, for a file) and closes the files. */
  close(): Promise<void>;
  /** Told of every change (live views): set by the runtime. */
  onChanged: ((c: Collection) => void) | null;
}

class MemoryStore implements Store {
  readonly kind = 'memory';
  readonly path = null;
  onChanged: ((c: Collection) => void) | null = null;
  constructor(public state: State) {}
  changed(c: Collection): void {
    this.onChanged?.(c);
  }
  persist(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

export interface FileStoreOptions {
  /** fdatasync after every append and compaction (default true). */
  fsync: boolean;
  /** Compact when the log is past this many bytes and past the document's size. */
  compactBytes: number;
  hooks?: CompactionHooks;
}

/**
 * The document (lowdb, readable JSON) plus the change log. Group commit: while one write is under
 * way, the changes of everything that happens meanwhile go out together in the next one: a log
 * append of the changed records (the cost of what changed), or, when the log has outgrown its
 * threshold or the whole state was replaced, a compaction: a fresh document, then an empty log.
 */
class FileStore implements Store {
  readonly kind = 'file';
  private dirty = new Map<string, [Collection, string]>();
  /** How much of each account's ledger the document and log hold (by object: a replaced account is written whole). */
  private ledgerWritten = new WeakMap<Account, number>();
  private compactNext = false;
  private lastScalars = '';
  private chain: Promise<void> = Promise.resolve();
  private next: Promise<void> | null = null;
  private documentBytes = 0;

  constructor(
    readonly path: string,
    private readonly db: Low<State>,
    private readonly document: DocumentFile,
    private readonly log: LogFile,
    private readonly options: FileStoreOptions,
  ) {
    this.markWritten();
    this.lastScalars = JSON.stringify(scalarsOf(db.data));
    this.documentBytes = document.lastBytes;
  }

  get state(): State {
    return this.db.data;
  }

  set state(next: State) {
    this.db.data = next;
    this.compactNext = true;
    this.dirty.clear();
  }

  /** Asks for a compaction at the next write (a new store's first write, a log found with stale lines). */
  compactSoon(): void {
    this.compactNext = true;
  }

  onChanged: ((c: Collection) => void) | null = null;

  changed(c: Collection, id: string): void {
    this.dirty.set(`${c}\u0000${id}`, [c, id]);
    this.onChanged?.(c);
  }

  persist(): Promise<void> {
    if (this.next) return this.next;
    const next = this.chain.then(() => {
      this.next = null;
      return this.write();
    });
    this.next = next;
    this.chain = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    this.compactNext = true;
    await this.persist();
    await this.log.close();
  }

  private async write(): Promise<void> {
    const { compactBytes } = this.options;
    if (this.compactNext || this.log.bytes > Math.max(compactBytes, this.documentBytes)) return this.compact();
    const line = this.batch();
    if (line === null) return;
    try {
      await this.log.append(line, this.options.fsync);
    } catch (err) {
      // What that append carried is in the state: the next write puts all of it in a document.
      this.compactNext = true;
      throw err;
    }
  }

  /** The changes since the last write as one log line (null: nothing changed). Synchronous: a consistent cut. */
  private batch(): string | null {
    const state = this.db.data;
    const scalars = scalarsOf(state);
    const scalarText = JSON.stringify(scalars);
    if (this.dirty.size === 0 && scalarText === this.lastScalars) return null;
    const c = [...this.dirty.values()].map(([coll, id]) => {
      const record = coll === 'accounts' ? state.accounts[id] : undefined;
      const change = changeOf(state, coll, id, record ? (this.ledgerWritten.get(record) ?? 0) : 0);
      if (record) this.ledgerWritten.set(record, record.ledger.length);
      return change;
    });
    this.dirty.clear();
    this.lastScalars = scalarText;
    const batch: Batch = { g: state.log_generation ?? 0, s: scalars, c };
    return `${JSON.stringify(batch)}\n`;
  }

  /** A fresh document of the whole state (atomically), then an empty log. */
  private async compact(): Promise<void> {
    const state = this.db.data;
    state.log_generation = (state.log_generation ?? 0) + 1;
    this.compactNext = false;
    this.dirty.clear();
    this.markWritten();
    this.lastScalars = JSON.stringify(scalarsOf(state));
    try {
      this.documentBytes = await this.db.write().then(() => this.document.lastBytes);
      await this.options.hooks?.beforeLogReset?.();
      await this.log.reset(this.options.fsync);
    } catch (err) {
      this.compactNext = true;
      throw err;
    }
  }

  private markWritten(): void {
    for (const a of Object.values(this.db.data.accounts)) this.ledgerWritten.set(a, a.ledger.length);
  }
}

/** Where the change log of a data file is. */
export function logPathOf(data: string): string {
  return `${data}.log`;
}

/**
 * Opens the store: the document read, the log replayed onto it. `init` gives the state of a new
 * store (fixtures); it is called only when the file does not exist yet (or for memory). Nothing
 * is written until the first persist().
 */
export async function openStore(
  data: string,
  init: () => State,
  options: FileStoreOptions,
): Promise<{ store: Store; created: boolean }> {
  if (data === 'memory') return { store: new MemoryStore(init()), created: true };
  const document = new DocumentFile(data, options.fsync, options.hooks);
  let existing: State | null;
  try {
    existing = await document.read();
  } catch (err) {
    throw new StoreFileError(`${data}: the data file is not valid JSON (${(err as Error).message}); see README "Data file and change log"`);
  }
  if (existing !== null && (typeof existing !== 'object' || existing.schema_version !== 1)) {
    throw new StoreFileError(`${data}: not a payout-sandbox data file (schema_version must be 1)`);
  }
  await mkdir(dirname(data), { recursive: true });
  const state = existing ?? init();
  const replayed = existing ? await replayLog(logPathOf(data), state) : { bytes: 0, stale: 0 };
  const db = new Low<State>(document, state);
  const store = new FileStore(data, db, document, await LogFile.open(logPathOf(data), existing ? replayed.bytes : 0), options);
  if (!existing || replayed.stale > 0) store.compactSoon();
  return { store, created: existing === null };
}
