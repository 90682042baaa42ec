import { chmod, lstat, mkdir, readlink, stat, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Low } from 'lowdb';
import { type Batch, changeOf, GROWING, grownList, LogFile, type OpenLogHandle, replayLog, scalarsOf } from './change-log.js';
import { type Collection, collectionOf } from './collections.js';
import { type CompactionHooks, DocumentFile } from './document-file.js';
import { fsProblem, refuseSpecialFile, StoreFileError, StoreWriteError, writeError } from './file-errors.js';
import { DataLock } from './lock.js';
import { Owners } from './owners.js';
import type { Checkpoint } from './start-points.js';
import type { State } from './state.js';

export type { CompactionHooks } from './document-file.js';
export { StoreFileError, StoreWriteError } from './file-errors.js';
export { type Checkpoint, type StartPoint, StartStopped } from './start-points.js';

/**
 * Hooks of the file layer: the compaction's crash points and the log's file handle (tests), and
 * the start's checkpoints (the CLI stops a start there on a signal; a test pauses one there).
 */
export interface StoreHooks extends CompactionHooks {
  /** Opens the change log's handle (a test double makes writes short or failing). */
  openLog?: OpenLogHandle;
  /** Called at each named point of the start (start-points.ts); a throw there stops the opening, everything let go of. */
  checkpoint?: Checkpoint;
}

/**
 * lowdb behind one interface: a JSON document with its change log, or memory only. Callers change
 * `state` synchronously (so a check and the change it guards can never interleave with another
 * request), tell each changed record (`changed`, through the Repo), and then await `persist()`,
 * which resolves once that change is on disk; only then is it acknowledged to the client.
 *
 * A write that fails (a full disk) rejects every persist() waiting on it: none of those requests
 * is acknowledged. The changes stay in memory and the store writes them again, with back-off,
 * until it can (`failure` says why meanwhile); until then `durable()` keeps answers that could
 * show them from going out. So a change is either on disk before anyone learns of it, or never
 * shown and written later.
 */
export interface Store {
  readonly kind: 'file' | 'memory';
  readonly path: string | null;
  /** The whole state; assigning it replaces everything (reset, snapshot restore): a compaction. */
  state: State;
  /** Resolves when everything changed so far is written; rejects when that write fails. */
  persist(): Promise<void>;
  /** Null when every change so far is on disk; else persist(): an answer that may show a change waits for it. */
  durable(): Promise<void> | null;
  /**
   * A record was added, changed or removed: the next persist writes it. `owner`: whose a removed
   * record was (it is no longer there to say; see Owners).
   */
  changed(c: Collection, id: string, owner?: string): void;
  /**
   * A record no answer has to wait for (the review's facts): written with the next write, or at
   * the stop, but not a change `durable()` waits for nor one that makes a write of its own.
   * `whole`: a growing record changed in what was written already, so it is written whole.
   */
  changedQuietly(c: Collection, id: string, whole?: boolean, owner?: string): void;
  /** Which records are each merchant's (kept current from the changes told here). */
  readonly owners: Owners;
  /** Why changes cannot be written now (they are retried with back-off), or null. */
  readonly failure: StoreWriteError | null;
  /** Called when writing works again after a failure (set by the runtime: due items run again). */
  onRecovered: (() => void) | null;
  /** Tells the lock which port the sandbox listens on (for the message a second process gets). */
  announce(port: number): Promise<void>;
  /**
   * Writes every change and closes the files: rejects (the store stays open, retrying) when the
   * changes cannot be written; once they are, tries a compaction, whose failure is only a
   * `problem` (the log keeps everything), and lets go of the lock.
   */
  close(): Promise<{ problem: string | null }>;
  /** Lets go of the files (log handle, lock) without writing: a start that failed after the store opened. */
  release(): Promise<void>;
  /** Told of every change (live views): set by the runtime. */
  onChanged: ((c: Collection) => void) | null;
}

class MemoryStore implements Store {
  readonly kind = 'memory';
  readonly path = null;
  readonly failure = null;
  readonly owners: Owners;
  onChanged: ((c: Collection) => void) | null = null;
  onRecovered: (() => void) | null = null;
  private current: State;
  constructor(state: State) {
    this.current = state;
    this.owners = new Owners(state);
  }
  get state(): State {
    return this.current;
  }
  set state(next: State) {
    this.current = next;
    this.owners.rebuild(next);
  }
  changed(c: Collection, id: string, owner?: string): void {
    this.owners.changed(this.current, c, id, owner);
    this.onChanged?.(c);
  }
  changedQuietly(c: Collection, id: string, _whole?: boolean, owner?: string): void {
    this.owners.changed(this.current, c, id, owner);
  }
  persist(): Promise<void> {
    return Promise.resolve();
  }
  durable(): null {
    return null;
  }
  announce(): Promise<void> {
    return Promise.resolve();
  }
  release(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<{ problem: null }> {
    return Promise.resolve({ problem: null });
  }
}

export interface FileStoreOptions {
  /** fdatasync after every append and compaction (default true). */
  fsync: boolean;
  /** Compact when the log is past this many bytes and past the document's size. */
  compactBytes: number;
  hooks?: StoreHooks;
  /** Told what an operator should know that is not a failure (a tidy-up compaction that could not be made). */
  warn?: (message: string) => void;
}

/** Back-off of the writes retried after a failure: from the first to the last, doubling. */
export const RETRY_MS = { first: 100, last: 5_000 };

/** After a compaction that was only a tidy-up failed, the appends go on and none is tried for this long. */
const COMPACT_RETRY_MS = 60_000;

/** What a write cut from the dirty set, to put back if the write fails. */
interface Cut {
  dirty: Map<string, [Collection, string]>;
  grown: Array<[object, number | undefined]>;
  scalars: string;
  seq: number;
}

/** Resolves in the event loop's check phase, once the callbacks of its poll phase (the turn's reads and writes) have run. */
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The document (lowdb, readable JSON) plus the change log. Group commit: a write begins at the end
 * of the event loop's turn that asked for it, and while one is under way, the changes of
 * everything that happens meanwhile go out together in the next one: a log
 * append of the changed records (the cost of what changed), or, when the log has outgrown its
 * threshold or the whole state was replaced, a compaction: a fresh document, then an empty log.
 * A failed write puts what it carried back into the dirty set, so the next one carries it again.
 */
class FileStore implements Store {
  readonly kind = 'file';
  private dirty = new Map<string, [Collection, string]>();
  /** How much of each growing record's list (an account's ledger, a page of facts) the document and log hold (by object: a replaced record is written whole). */
  private grownWritten = new WeakMap<object, number>();
  /** The state was replaced: only a compaction can write it. */
  private mustCompact = false;
  /** A new store: let go of before its first write, it leaves no empty log behind either. */
  private isNew = false;
  /** A compaction would tidy up (the log outgrew its threshold, stale lines): tried, and an append if it fails. */
  private wantCompact = false;
  /** After a tidy-up failed (no room for a second document), none is tried again before this (performance.now()). */
  private compactAfter = 0;
  private lastScalars = '';
  private chain: Promise<void> = Promise.resolve();
  private next: Promise<void> | null = null;
  private documentBytes = 0;
  /** Changes told so far, and how many of them are on disk. */
  private changeSeq = 0;
  private durableSeq = 0;
  failure: StoreWriteError | null = null;
  readonly owners: Owners;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryMs = RETRY_MS.first;
  private closed = false;
  /** Stopped by crash(): no write begins any more. */
  private crashed = false;
  /** The highest document generation written: a compaction goes above it, whatever generation a replaced state brings. */
  private generation: number;
  /** How many lines of the current generation the log holds (the next is numbered one more). */
  private linesOfGeneration = 0;
  onChanged: ((c: Collection) => void) | null = null;
  onRecovered: (() => void) | null = null;

  constructor(
    readonly path: string,
    private readonly db: Low<State>,
    private readonly document: DocumentFile,
    private readonly log: LogFile,
    private readonly lock: DataLock,
    private readonly options: FileStoreOptions,
  ) {
    this.markWritten();
    this.owners = new Owners(db.data);
    this.lastScalars = JSON.stringify(scalarsOf(db.data));
    this.documentBytes = document.lastBytes;
    this.generation = db.data.log_generation ?? 0;
  }

  get state(): State {
    return this.db.data;
  }

  set state(next: State) {
    this.db.data = next;
    this.owners.rebuild(next);
    this.mustCompact = true;
    this.changeSeq += 1;
    this.dirty.clear();
  }

  /**
   * Asks for a compaction at the next write: required for a new store (there is no document yet);
   * a tidy-up for a log found with stale lines (appends go on if there is no room for it).
   */
  compactSoon(required: boolean): void {
    if (required) this.mustCompact = true;
    else this.wantCompact = true;
  }

  /** A new store (no document yet), its first write still to come. */
  /** The log holds `lines` lines of the current generation (replayed at the opening): the next appended is numbered after them. */
  continueLog(lines: number): void {
    this.linesOfGeneration = lines;
  }

  startNew(): void {
    this.isNew = true;
    this.compactSoon(true);
  }

  changed(c: Collection, id: string, owner?: string): void {
    this.dirty.set(`${c}\u0000${id}`, [c, id]);
    this.changeSeq += 1;
    this.owners.changed(this.db.data, c, id, owner);
    this.onChanged?.(c);
  }

  changedQuietly(c: Collection, id: string, whole = false, owner?: string): void {
    this.dirty.set(`${c}\u0000${id}`, [c, id]);
    this.owners.changed(this.db.data, c, id, owner);
    const r = whole ? (collectionOf(this.db.data, c)[id] as object | undefined) : undefined;
    if (r) this.grownWritten.delete(r);
  }

  persist(): Promise<void> {
    if (this.next) return this.next;
    // The write begins at the end of this turn of the event loop (or, behind a write under way, of
    // the turn that write ends in), not at once: every change of the turn goes out in it, those of
    // the requests read in the same turn and of what the caller does next (an advance's own
    // change after the webhook attempt it waited for), so none of them waits for a second write.
    const next = this.chain.then(endOfTurn).then(() => {
      this.next = null;
      return this.write().then(
        () => this.succeeded(),
        (err: unknown) => {
          throw this.failed(err);
        },
      );
    });
    this.next = next;
    this.chain = next.catch(() => undefined);
    return next;
  }

  durable(): Promise<void> | null {
    if (this.durableSeq === this.changeSeq && this.failure === null && !this.mustCompact) return null;
    return this.persist();
  }

  announce(port: number): Promise<void> {
    return this.lock.announce(port);
  }

  async close(): Promise<{ problem: string | null }> {
    if (this.closed) return { problem: null };
    await this.persist();
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    // The last compaction goes through the chain too: no write of anything still finishing overlaps it.
    const problem = await this.enqueue(() =>
      this.compactNow().then(
        () => null,
        (err: unknown) => `could not compact the change log into ${this.path} (${(err as Error).message}); it is kept, and replayed at the next start`,
      ),
    );
    await this.log.close();
    await this.lock.release();
    return { problem };
  }

  /** Runs `fn` after every write queued so far (one file operation at a time). */
  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fn);
    this.chain = p.then(
      () => undefined,
      () => undefined,
    );
    return p;
  }

  async release(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    // A write under way finishes first: the log's handle is not closed under it.
    await this.chain;
    await this.log.close();
    if (this.isNew && this.documentBytes === 0) await removeIfEmpty(logPathOf(this.path));
    await this.lock.release();
  }

  /** Stops as a killed process would: nothing more written, the log's handle closed, the lock left behind. */
  async crash(): Promise<void> {
    this.closed = true;
    this.crashed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.log.close();
    this.lock.forget();
  }

  private succeeded(): void {
    this.retryMs = RETRY_MS.first;
    if (this.failure === null) return;
    this.failure = null;
    if (!this.closed) this.onRecovered?.();
  }

  /** Records the failure and arms a retry with back-off (the changes stay dirty, so it writes them). */
  private failed(err: unknown): StoreWriteError {
    const e = writeError(err, `${this.path}: cannot write`);
    this.failure = e;
    if (!this.closed && this.retryTimer === null) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.persist().catch(() => undefined);
      }, this.retryMs);
      this.retryTimer.unref();
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MS.last);
    }
    return e;
  }

  private async write(): Promise<void> {
    // A write asked for before a crash and begun after it (at the end of that turn): as after a kill, nothing.
    if (this.crashed) throw new StoreWriteError(`${this.path}: the store was stopped as a crash would stop it`, undefined);
    if (this.mustCompact) return this.compactNow();
    const outgrown = this.wantCompact || this.log.bytes > Math.max(this.options.compactBytes, this.documentBytes);
    if (outgrown && performance.now() >= this.compactAfter) {
      // A tidy-up that fails (no room for a second document) must not stop the appends.
      try {
        return await this.compactNow();
      } catch (err) {
        this.wantCompact = false;
        this.compactAfter = performance.now() + COMPACT_RETRY_MS;
        this.options.warn?.(
          `could not compact the change log into ${this.path} (${(err as Error).message}); appends go on, and it is tried again in ${COMPACT_RETRY_MS / 1000} s`,
        );
      }
    }
    const cut = this.cut();
    const line = this.batch();
    if (line === null) {
      this.durableSeq = Math.max(this.durableSeq, cut.seq);
      return;
    }
    try {
      await this.log.append(line, this.options.fsync);
    } catch (err) {
      this.putBack(cut);
      throw err;
    }
    this.linesOfGeneration += 1;
    this.durableSeq = Math.max(this.durableSeq, cut.seq);
  }

  /** What the next write is about to take out of the dirty set (before batch() or a compaction takes it). */
  private cut(): Cut {
    const grown: Cut['grown'] = [];
    for (const [c, id] of this.dirty.values()) {
      const r = GROWING[c] === undefined ? undefined : (collectionOf(this.db.data, c)[id] as object | undefined);
      if (r) grown.push([r, this.grownWritten.get(r)]);
    }
    return { dirty: new Map(this.dirty), grown, scalars: this.lastScalars, seq: this.changeSeq };
  }

  /** A write failed: what it carried is dirty again (beside whatever changed meanwhile). */
  private putBack(cut: Cut): void {
    for (const [key, entry] of cut.dirty) if (!this.dirty.has(key)) this.dirty.set(key, entry);
    for (const [r, n] of cut.grown) {
      if (n === undefined) this.grownWritten.delete(r);
      // Unless it is to be written whole now (changed in what was written: changedQuietly's `whole`).
      else if (this.grownWritten.has(r)) this.grownWritten.set(r, n);
    }
    this.lastScalars = cut.scalars;
  }

  /** The changes since the last write as one log line (null: nothing changed). Synchronous: a consistent cut. */
  private batch(): string | null {
    const state = this.db.data;
    const scalars = scalarsOf(state);
    const scalarText = JSON.stringify(scalars);
    if (this.dirty.size === 0 && scalarText === this.lastScalars) return null;
    const c = [...this.dirty.values()].map(([coll, id]) => {
      const record = GROWING[coll] === undefined ? undefined : (collectionOf(state, coll)[id] as object | undefined);
      const change = changeOf(state, coll, id, record ? (this.grownWritten.get(record) ?? 0) : 0);
      if (record) this.grownWritten.set(record, grownList(coll, record)?.length ?? 0);
      return change;
    });
    this.dirty.clear();
    this.lastScalars = scalarText;
    const batch: Batch = { g: state.log_generation ?? 0, n: this.linesOfGeneration + 1, s: scalars, c };
    return `${JSON.stringify(batch)}\n`;
  }

  /**
   * A fresh document of the whole state (atomically), then an empty log. Failing before the new
   * document is in place, it leaves everything as it was (the generation, what is dirty); after,
   * the document holds everything and the log's older lines are skipped as stale.
   */
  private async compactNow(): Promise<void> {
    const state = this.db.data;
    const generation = state.log_generation;
    const cut = this.cut();
    const all = this.growing().map((r) => [r, this.grownWritten.get(r)] as [object, number | undefined]);
    const wasMust = this.mustCompact;
    // Above every generation written so far: a replaced state (reset, restore) may bring a lower one,
    // and lines of a higher one may still be in the log.
    state.log_generation = Math.max(this.generation, generation ?? 0) + 1;
    this.mustCompact = this.wantCompact = false;
    this.dirty.clear();
    this.markWritten();
    this.lastScalars = JSON.stringify(scalarsOf(state));
    try {
      this.documentBytes = await this.db.write().then(() => this.document.lastBytes);
    } catch (err) {
      if (state === this.db.data) state.log_generation = generation;
      if (state.log_generation === undefined) delete state.log_generation;
      this.mustCompact = wasMust || this.mustCompact;
      this.putBack({ ...cut, grown: all });
      throw err;
    }
    this.durableSeq = Math.max(this.durableSeq, cut.seq);
    this.generation = state.log_generation;
    // The new generation has no line yet (whether or not the older lines can be cleared below).
    this.linesOfGeneration = 0;
    await this.options.hooks?.beforeLogReset?.();
    try {
      await this.log.reset(this.options.fsync);
    } catch {
      // The document holds everything; the log's lines are of the older generation, skipped at the next start.
      this.wantCompact = true;
    }
  }

  /** Every record of the growing collections. */
  private growing(): object[] {
    return (Object.keys(GROWING) as Collection[]).flatMap((c) => Object.values(collectionOf(this.db.data, c)) as object[]);
  }

  private markWritten(): void {
    for (const c of Object.keys(GROWING) as Collection[]) {
      for (const r of Object.values(collectionOf(this.db.data, c))) this.grownWritten.set(r as object, grownList(c, r)?.length ?? 0);
    }
  }
}

/**
 * For tests of a crash: the store stops as a killed process would (nothing more written, the
 * lock file left behind for the next start to take over). A memory store has nothing to leave.
 */
export async function crashStore(store: Store): Promise<void> {
  if (store instanceof FileStore) await store.crash();
}

/** Where the change log of a data file is. */
export function logPathOf(data: string): string {
  return `${data}.log`;
}

/**
 * Opens the store: the lock taken first (nothing of the data file is read before), a compaction's
 * leftover removed, the document read and checked, the log replayed onto it. `init` gives the
 * state of a new store (fixtures); it is called only when the file does not exist (or for
 * memory): any other file that is not a valid data file stops the opening (StoreFileError) with
 * every byte left as it was. Nothing is written until the first persist(). `notices` get what an
 * operator should be told (a torn line cut, a stale lock taken over, a leftover removed).
 */
export async function openStore(
  data: string,
  init: () => State,
  options: FileStoreOptions,
  notices: string[] = [],
): Promise<{ store: Store; created: boolean }> {
  if (data === 'memory') return { store: new MemoryStore(init()), created: true };
  const named = data;
  data = await dataFileOf(named);
  await makeDirectory(named, dirname(data));
  const lock = await DataLock.acquire(data, notices, options.hooks?.checkpoint);
  try {
    const document = new DocumentFile(data, options.fsync, options.hooks);
    if (await document.removeLeftover())
      notices.push(`${document.temp}: removed the partial document a compaction left when it was stopped (the data file in place, if any, is whole)`);
    const existing = await document.read();
    await options.hooks?.checkpoint?.('replay');
    if (!existing) await refuseOrphanLog(data);
    const state = existing ?? init();
    const replayed = existing ? await replayLog(logPathOf(data), state, notices) : { applied: 0, bytes: 0, stale: 0, torn: 0 };
    const db = new Low<State>(document, state);
    // A torn last line is left in the file until the first write cuts it off: a start that fails
    // after this point has changed nothing.
    const log = await LogFile.open(logPathOf(data), existing ? replayed.bytes : 0, options.hooks?.openLog, replayed.torn > 0);
    // Files an earlier version made (0644 under a usual umask) are made the owner's alone as well.
    await ownerOnly(data);
    await ownerOnly(logPathOf(data));
    const store = new FileStore(data, db, document, log, lock, options);
    store.continueLog(replayed.applied);
    if (!existing) store.startNew();
    else if (replayed.stale > 0) store.compactSoon(false);
    return { store, created: existing === null };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/**
 * No data file, but a change log with changes beside it: they are acknowledged changes to a data
 * file that is gone (deleted, moved, not restored with its log). A new store would empty that log
 * at its first write, so the start stops instead, with both files as they were.
 */
async function refuseOrphanLog(data: string): Promise<void> {
  const log = logPathOf(data);
  // Opened for appending, a FIFO would wait for a reader for ever.
  const st = await refuseSpecialFile(log, 'change log');
  // Missing, empty, or a directory (LogFile.open says what is wrong with that): nothing to lose.
  if (st === null || !st.isFile() || st.size === 0) return;
  const size = st.size;
  throw new StoreFileError(
    `${log}: the change log holds ${size} bytes of changes, but ${data} does not exist: they are changes to a data file that is gone. ` +
      `Put ${data} back (the copy you moved or backed up, with this log), or move ${log} away to start a new store without them.`,
  );
}

/**
 * Makes a file of the store readable and writable by its owner alone (it holds credentials), when
 * it allows more; best effort: a file this process does not own is left as it is.
 */
async function ownerOnly(path: string): Promise<void> {
  try {
    const st = await stat(path);
    if ((st.mode & 0o077) !== 0) await chmod(path, st.mode & 0o700 & ~0o100);
  } catch {
    // Missing (a new store's document, written later), or not ours to change.
  }
}

/** Removes a file that holds nothing (a log opened, never written); anything else stays as it is. */
async function removeIfEmpty(path: string): Promise<void> {
  try {
    if ((await stat(path)).size === 0) await unlink(path);
  } catch {
    // Gone already, or not ours to judge: left as it is.
  }
}

/** How many links in a row are followed (Linux's own limit is 40). */
const MAX_LINKS = 40;

/**
 * The file a data path names: a symbolic link is followed (to a file that may not exist yet), so
 * the lock, the log and every compaction work beside the file it points at, and a compaction's
 * rename replaces that file, not the link. Resolved once, at the opening.
 */
async function dataFileOf(named: string): Promise<string> {
  let path = resolve(named);
  for (let links = 0; ; links++) {
    let isLink: boolean;
    try {
      isLink = (await lstat(path)).isSymbolicLink();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Missing (a new store, made there) or not usable: the opening says which, naming the file.
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') return links === 0 ? named : path;
      throw new StoreFileError(`${named}: cannot use this data file: ${fsProblem(err)}`);
    }
    if (!isLink) return links === 0 ? named : path;
    if (links === MAX_LINKS) throw new StoreFileError(`${named}: cannot use this data file: more than ${MAX_LINKS} symbolic links in a row (a loop?)`);
    path = resolve(dirname(path), await readlink(path));
  }
}

/**
 * The data file's directory, made if missing, level by level (Node's recursive mkdir loops for
 * ever where a directory cannot be made, as under /proc); a file in its path, or no permission,
 * said in one line.
 */
async function makeDirectory(named: string, dir: string): Promise<void> {
  const missing: string[] = [];
  for (let p = dir; ; p = dirname(p)) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(p)).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && p !== dirname(p)) {
        missing.unshift(p);
        continue;
      }
      throw new StoreFileError(`${named}: cannot make the data file's directory ${dir}: ${fsProblem(err)}`);
    }
    if (!isDirectory) throw new StoreFileError(`${named}: cannot use this data file: ${p} is a file, not a directory`);
    break;
  }
  for (const p of missing) {
    try {
      await mkdir(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new StoreFileError(`${named}: cannot make the data file's directory ${p}: ${fsProblem(err)}`);
    }
  }
}
