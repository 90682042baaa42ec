import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Low, Memory } from 'lowdb';
import { DataFile } from 'lowdb/node';
import type { State } from './state.js';
import type { Collection } from './collections.js';

/**
 * lowdb behind one interface: a JSON file, or memory only. Callers change `state` synchronously
 * (so a check and the change it guards can never interleave with another request) and then
 * await `persist()`, which resolves once that change is on disk; only then is the change
 * acknowledged to the client.
 */
export interface Store {
  readonly kind: 'file' | 'memory';
  readonly path: string | null;
  /** The whole state; assigning it replaces everything (reset, snapshot restore). */
  state: State;
  /** Resolves when everything changed so far is written. */
  persist(): Promise<void>;
  /** A record was added, changed or removed: the next persist writes it. */
  changed(c: Collection, id: string): void;
}

class LowStore implements Store {
  /** The write under way, if any. */
  private writing: Promise<void> | null = null;
  /** The write that will carry every change made since `writing` took its copy. */
  private next: Promise<void> | null = null;

  constructor(
    readonly kind: 'file' | 'memory',
    readonly path: string | null,
    private readonly db: Low<State>,
  ) {}

  changed(_c: Collection, _id: string): void {}

  get state(): State {
    return this.db.data;
  }

  set state(next: State) {
    this.db.data = next;
  }

  /**
   * Group commit: lowdb serializes the whole state on each write, so callers do not each get a
   * write of their own. While one write is under way, every change made meanwhile joins the one
   * next write, which takes its copy of the state when the current one has finished; each caller's
   * promise resolves once a write that includes its change is on disk.
   */
  persist(): Promise<void> {
    if (this.next) return this.next;
    const after = this.writing ?? Promise.resolve();
    const next = after
      .catch(() => undefined)
      .then(async () => {
        this.next = null;
        const w = this.db.write();
        this.writing = w;
        try {
          await w;
        } finally {
          if (this.writing === w) this.writing = null;
        }
      });
    this.next = next;
    return next;
  }
}

export class StoreFileError extends Error {}

/**
 * Opens the store. `init` gives the state of a new store (fixtures); it is called only when the
 * file does not exist yet (or for memory). Nothing is written until the first persist().
 */
export async function openStore(data: string, init: () => State): Promise<{ store: Store; created: boolean }> {
  if (data === 'memory') {
    return { store: new LowStore('memory', null, new Low<State>(new Memory<State>(), init())), created: true };
  }
  const adapter = new DataFile<State>(data, {
    parse: (text) => JSON.parse(text) as State,
    stringify: (state) => JSON.stringify(state),
  });
  let existing: State | null;
  try {
    existing = await adapter.read();
  } catch (err) {
    throw new StoreFileError(`${data}: the data file is not valid JSON (${(err as Error).message})`);
  }
  if (existing !== null && (typeof existing !== 'object' || existing.schema_version !== 1)) {
    throw new StoreFileError(`${data}: not a payout-sandbox data file (schema_version must be 1)`);
  }
  await mkdir(dirname(data), { recursive: true });
  const db = new Low<State>(adapter, existing ?? init());
  return { store: new LowStore('file', data, db), created: existing === null };
}
