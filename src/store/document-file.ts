import { isAscii } from 'node:buffer';
import { open, readFile, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import type { State } from './state.js';

/** Test hooks at the crash points of a compaction (a throw there stands for a crash). */
export interface CompactionHooks {
  /** The new document is written and synced under its temporary name, not yet renamed. */
  beforeRename?: () => Promise<void> | void;
  /** The new document has replaced the old one; the log still holds the old generation's lines. */
  beforeLogReset?: () => Promise<void> | void;
}

/**
 * lowdb's adapter for the data file: readable JSON, written atomically as lowdb's own writer
 * does (a temporary file, then a rename), and durably: the file synced before the rename and
 * the directory after it, so a crash leaves the old document or the new one, whole.
 */
export class DocumentFile implements Adapter<State> {
  /** The size of the last document written. */
  lastBytes = 0;
  private readonly temp: string;

  constructor(
    private readonly path: string,
    private readonly sync: boolean,
    private readonly hooks: CompactionHooks = {},
  ) {
    this.temp = join(dirname(path), `.${basename(path)}.tmp`);
  }

  async read(): Promise<State | null> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    this.lastBytes = bytes.length;
    // Plain ASCII (the usual case) decodes faster as Latin-1, and gives the same text.
    return JSON.parse(isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8')) as State;
  }

  /** Serializes at once (the caller's consistent cut: nothing awaits before it), then writes. */
  async write(state: State): Promise<void> {
    const text = JSON.stringify(state);
    const file = await open(this.temp, 'w');
    try {
      await file.writeFile(text);
      if (this.sync) await file.sync();
    } finally {
      await file.close();
    }
    await this.hooks.beforeRename?.();
    await rename(this.temp, this.path);
    if (this.sync) await syncDirectory(dirname(this.path));
    this.lastBytes = Buffer.byteLength(text);
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some file systems cannot sync a directory; the rename is still atomic.
  } finally {
    await handle.close();
  }
}
