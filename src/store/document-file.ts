import { isAscii } from 'node:buffer';
import { type FileHandle, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { checkDocument } from './document-schema.js';
import { fsProblem, refuseSpecialFile, StoreFileError, writeError } from './file-errors.js';
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
  /** Where a compaction writes the next document before renaming it into place. */
  readonly temp: string;

  constructor(
    private readonly path: string,
    private readonly sync: boolean,
    private readonly hooks: CompactionHooks = {},
  ) {
    this.temp = join(dirname(path), `.${basename(path)}.tmp`);
  }

  /**
   * The document, checked (a StoreFileError naming the file and the problem otherwise), or null
   * when there is no file: only a missing file means a new store.
   */
  async read(): Promise<State | null> {
    await refuseSpecialFile(this.path, 'data file');
    let bytes: Buffer;
    try {
      bytes = await readFile(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new StoreFileError(`${this.path}: cannot read the data file: ${fsProblem(err)}`);
    }
    this.lastBytes = bytes.length;
    let value: unknown;
    try {
      if (bytes.length === 0) throw new Error('the file is empty');
      // Plain ASCII (the usual case) decodes faster as Latin-1, and gives the same text.
      value = JSON.parse(isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8'));
    } catch (err) {
      throw new StoreFileError(`${this.path}: the data file is not valid JSON (${(err as Error).message}); see docs/operations.md "Data file and change log"`);
    }
    return checkDocument(this.path, value);
  }

  /**
   * Serializes at once (the caller's consistent cut: nothing awaits before it), then writes. A
   * write that fails (a full disk) leaves the old document in place and no temporary file behind.
   */
  async write(state: State): Promise<void> {
    const text = JSON.stringify(state);
    try {
      // Readable by its owner alone: it holds every merchant's credentials and webhook secrets.
      const file = await open(this.temp, 'w', 0o600);
      try {
        await file.writeFile(text);
        if (this.sync) await file.sync();
      } finally {
        await file.close();
      }
    } catch (err) {
      await unlink(this.temp).catch(() => undefined);
      throw writeError(err, `${this.path}: cannot write the data file`);
    }
    await this.hooks.beforeRename?.();
    try {
      await rename(this.temp, this.path);
    } catch (err) {
      await unlink(this.temp).catch(() => undefined);
      throw writeError(err, `${this.path}: cannot replace the data file`);
    }
    if (this.sync) await syncDirectory(dirname(this.path));
    this.lastBytes = Buffer.byteLength(text);
  }

  /** A compaction stopped before its rename leaves its temporary file: removed at start (the document in place is whole). */
  async removeLeftover(): Promise<boolean> {
    try {
      await unlink(this.temp);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw new StoreFileError(`${this.temp}: cannot remove a compaction's leftover: ${fsProblem(err)}`);
    }
  }
}

/**
 * Syncs the directory after the rename, as well as it can: once the rename is done the new
 * document is in place, so a failure here (a file system that cannot sync a directory, no file
 * descriptor left) must not be taken for a failed compaction.
 */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | null = null;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // The rename is atomic; only its durability across a power loss is left to the file system.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
