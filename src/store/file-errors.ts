import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';

/** A data file, change log or lock that cannot be used: start-up stops (exit 2) with this message, nothing written. */
export class StoreFileError extends Error {}

/** A change that could not be made durable (a full disk, an I/O error, a short write). */
export class StoreWriteError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

const PROBLEMS: Record<string, string> = {
  ENOENT: 'it does not exist',
  EISDIR: 'it is a directory, not a file',
  ENOTDIR: 'a part of its path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the file system is read-only',
  EIO: 'an input/output error',
  EMFILE: 'too many open files',
};

/** What a file-system error means, in words, with its code: `it is a directory, not a file (EISDIR)`. */
export function fsProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code && PROBLEMS[code]) return `${PROBLEMS[code]} (${code})`;
  return code ? `${(err as Error).message}` : String((err as Error)?.message ?? err);
}

/** A write failure as a StoreWriteError (kept as is when it already is one). */
export function writeError(err: unknown, what: string): StoreWriteError {
  if (err instanceof StoreWriteError) return err;
  return new StoreWriteError(`${what}: ${fsProblem(err)}`, (err as NodeJS.ErrnoException)?.code);
}

/**
 * Refuses a path that exists and is neither a regular file nor a directory (a FIFO, a socket, a
 * device): reading a FIFO waits for a writer for ever, and the start would hang instead of saying
 * why. Missing is fine (the caller decides what that means); a directory is left to the read, which
 * names it (EISDIR). Answers what it found (null: nothing, or nothing that could be read).
 */
export async function refuseSpecialFile(path: string, what: string): Promise<Stats | null> {
  let st: Stats;
  try {
    st = await stat(path);
  } catch {
    return null;
  }
  if (st.isFile() || st.isDirectory()) return st;
  const kind = st.isFIFO()
    ? 'a FIFO'
    : st.isSocket()
      ? 'a socket'
      : st.isCharacterDevice()
        ? 'a character device'
        : st.isBlockDevice()
          ? 'a block device'
          : 'not a file';
  throw new StoreFileError(`${path}: cannot read the ${what}: it is ${kind}, not a regular file`);
}
