import { open as openFile, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fsProblem } from './file-errors.js';

/** Whether a file can be made in this directory: one is made and removed at once (access() would pass root on a file system that refuses it). */
async function probeDirectory(dir: string): Promise<string | null> {
  const probe = join(dir, `.payout-sandbox-probe-${process.pid}`);
  try {
    await (await openFile(probe, 'wx')).close();
    await unlink(probe);
    return null;
  } catch (err) {
    await unlink(probe).catch(() => undefined);
    return fsProblem(err);
  }
}

/**
 * Why a path the sandbox will write (a report at the stop, the ready file once listening) cannot
 * be, or null; checked at start, so a mistake stops the start rather than lose the reports at the
 * stop. A file that exists is opened for appending (nothing written); `replaced` (the ready file,
 * written beside itself and renamed), a directory, or a path not there yet: a file is made and
 * removed in the directory, or in the nearest one above it that exists (the writer makes the rest).
 */
export async function writeProblem(path: string, kind: 'file' | 'replaced' | 'directory'): Promise<string | null> {
  try {
    const s = await stat(path);
    if (kind === 'directory') return s.isDirectory() ? probeDirectory(path) : 'it is a file, not a directory';
    if (s.isDirectory()) return 'it is a directory, not a file';
    await (await openFile(path, 'a')).close();
    if (kind === 'file') return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return fsProblem(err);
  }
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      if (!(await stat(dir)).isDirectory()) return `${dir} is a file, not a directory`;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dir !== dirname(dir)) continue;
      return `${dir}: ${fsProblem(err)}`;
    }
    const problem = await probeDirectory(dir);
    return problem === null ? null : `${dir}: ${problem}`;
  }
}
