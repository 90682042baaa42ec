import { readFileSync, unlinkSync } from 'node:fs';
import { link, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { fsProblem, StoreFileError, writeError } from './file-errors.js';
import type { Checkpoint } from './start-points.js';

/** What the lock file beside a data file says of its holder. */
export interface LockInfo {
  pid: number;
  host: string;
  /** Null until the holder listens. */
  port: number | null;
  started_at: string;
}

/** Where the lock of a data file is. */
export function lockPathOf(data: string): string {
  return `${data}.lock`;
}

/** Locks this process holds, by absolute path: released at exit, and told apart from a stale lock with our pid. */
const HELD = new Set<string>();
/** The lock's temporary files while they exist: an exit at once (a second signal) leaves none behind. */
const TEMPS = new Set<string>();
let exitHook = false;

function releaseAllAtExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const path of [...HELD, ...TEMPS]) {
      try {
        unlinkSync(path);
      } catch {
        // Already gone.
      }
    }
  });
}

/** Writes a temporary file of the lock, known to the exit hook until `dropTemp` removes it. */
async function writeTemp(temp: string, info: LockInfo): Promise<void> {
  releaseAllAtExit();
  TEMPS.add(temp);
  await writeFile(temp, `${JSON.stringify(info)}\n`);
}

async function dropTemp(temp: string): Promise<void> {
  await unlink(temp).catch(() => undefined);
  TEMPS.delete(temp);
}

/** Out of space (or quota) is a full disk, not a wrong path: the caller tells the two apart (exit 1, not 2). */
const FULL = new Set(['ENOSPC', 'EDQUOT']);

async function readInfo(path: string): Promise<LockInfo | null | 'gone'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw new StoreFileError(`${path}: cannot read the lock file: ${fsProblem(err)}`);
  }
  try {
    const info = JSON.parse(text) as LockInfo;
    return typeof info?.pid === 'number' ? info : null;
  } catch {
    return null;
  }
}

/** A holder refreshes its lock's time this often; a lock from another host not refreshed for STALE_MS is taken over. */
export const HEARTBEAT_MS = 10_000;
const STALE_MS = 60_000;

/**
 * What /proc says of the process with this pid on Linux: its state letter and when it started (ms
 * since the epoch); null where that cannot be read. A pid the kernel gave to a new process since
 * tells a stale lock apart by its start.
 */
function processStatus(pid: number): { state: string; started: number | null } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name (which may hold spaces and parentheses): state, ppid, …, starttime (the 20th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    // The kernel counts in USER_HZ, 100 on Linux.
    return { state: fields[0], started: Number.isFinite(ticks) && Number.isFinite(boot) ? (boot + ticks / 100) * 1000 : null };
  } catch {
    return null;
  }
}

/**
 * A zombie (Z: killed, not yet reaped by its parent, which in a container without an init may be
 * never) or a dead task (X) answers kill(pid, 0) but runs no more and holds nothing.
 */
const NOT_RUNNING = new Set(['Z', 'X']);

/**
 * Whether the holder named in a lock may still run. On this host: its pid is alive and is the
 * same process (not a pid given again since: its start is not after the lock's). On another host
 * (a shared volume) it cannot be checked: it may run while it keeps refreshing the lock.
 */
async function mayRun(info: LockInfo, path: string): Promise<boolean> {
  if (info.host !== hostname()) {
    const touched = await stat(path).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    return Date.now() - touched < STALE_MS;
  }
  // Our own pid: held by this process only if one of its stores holds it (a container's pid 1
  // finds the lock its previous run, also pid 1, left behind).
  if (info.pid === process.pid) return HELD.has(path);
  try {
    process.kill(info.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const status = processStatus(info.pid);
  if (status === null) return true;
  if (NOT_RUNNING.has(status.state)) return false;
  return status.started === null || status.started <= Date.parse(info.started_at) + 1000;
}

function holderText(info: LockInfo): string {
  const port = info.port === null ? 'not listening yet' : `port ${info.port}`;
  const host = info.host === hostname() ? '' : ` on host ${info.host}`;
  return `the sandbox pid ${info.pid}${host} (${port}, started ${info.started_at})`;
}

/**
 * One data file, one process: a lock file beside it (`<data>.lock`, JSON: pid, host, port, start
 * time), made atomically (written under a temporary name, then hard-linked into place, which
 * fails if it exists) before anything of the data file is read. A lock whose process is gone is
 * taken over, with a notice; a live one stops the start naming its holder.
 */
export class DataLock {
  private info: LockInfo;
  private heartbeat: NodeJS.Timeout | null = null;
  /** The announce under way: a release waits for it, so its rename cannot bring the lock back after. */
  private announcing: Promise<void> = Promise.resolve();
  private released = false;

  private constructor(
    readonly path: string,
    info: LockInfo,
  ) {
    this.info = info;
  }

  /** `checkpoint` is called once the temporary file is written: a throw there stops the start, the temporary file removed. */
  static async acquire(data: string, notices: string[], checkpoint?: Checkpoint): Promise<DataLock> {
    const path = resolve(lockPathOf(data));
    const info: LockInfo = { pid: process.pid, host: hostname(), port: null, started_at: new Date().toISOString() };
    const temp = `${path}.${process.pid}.tmp`;
    try {
      await writeTemp(temp, info);
    } catch (err) {
      await dropTemp(temp);
      const what = `${lockPathOf(data)}: cannot write the lock file beside the data file`;
      if (FULL.has((err as NodeJS.ErrnoException).code ?? '')) throw writeError(err, what);
      throw new StoreFileError(`${what}: ${fsProblem(err)}`);
    }
    try {
      await checkpoint?.('lock');
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          await link(temp, path);
          HELD.add(path);
          releaseAllAtExit();
          const lock = new DataLock(path, info);
          lock.beat();
          return lock;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new StoreFileError(`${lockPathOf(data)}: cannot take the lock: ${fsProblem(err)}`);
        }
        const held = await readInfo(path);
        if (held === 'gone') continue;
        if (held !== null && (await mayRun(held, path))) {
          throw new StoreFileError(
            `${data} is in use by ${holderText(held)}: one data file serves one sandbox at a time. Stop that one, or start this one with another --data (or --data memory). ` +
              `If that process is gone and this is wrong, delete ${lockPathOf(data)}.`,
          );
        }
        if (await takeOver(path, held)) {
          const by =
            held === null
              ? 'a lock file that is not one of ours (unreadable)'
              : held.pid === process.pid
                ? `an earlier run with this same pid ${held.pid} (a restarted container)`
                : `pid ${held.pid}, which is no longer running`;
          notices.push(`${lockPathOf(data)}: took over the lock left by ${by}`);
        }
      }
      throw new StoreFileError(`${lockPathOf(data)}: could not take the lock (other sandboxes kept taking it); try again`);
    } finally {
      await dropTemp(temp);
    }
  }

  /** The port the holder listens on, written into the lock (replaced atomically: the lock is held throughout). */
  announce(port: number): Promise<void> {
    const write = async () => {
      if (this.released) return;
      this.info = { ...this.info, port };
      const temp = `${this.path}.${process.pid}.tmp`;
      try {
        await writeTemp(temp, this.info);
        await rename(temp, this.path);
      } finally {
        await dropTemp(temp);
      }
    };
    const done = this.announcing.then(write);
    this.announcing = done.catch(() => undefined);
    return done;
  }

  /** Refreshes the lock's time while it is held: a sandbox on another host sharing the volume sees it is alive. */
  private beat(): void {
    this.heartbeat = setInterval(() => {
      const now = new Date();
      utimes(this.path, now, now).catch(() => undefined);
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Lets go of the lock as a dead process does: the file stays, and the next start takes it over (tests of a crash). */
  forget(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    HELD.delete(this.path);
  }

  /** Removes the lock, if it is still ours (once an announce under way is done). */
  async release(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.released = true;
    await this.announcing;
    if (!HELD.delete(this.path)) return;
    const now = await readInfo(this.path).catch(() => null);
    if (now !== 'gone' && now !== null && (now.pid !== this.info.pid || now.started_at !== this.info.started_at)) return;
    await unlink(this.path).catch(() => undefined);
  }
}

/**
 * Moves a stale lock aside so the next link can take its place. Two processes taking over the same
 * stale lock at once: the rename moves it for one of them; if what one moved is no longer the
 * stale lock it read (the other had taken it over already), it puts it back.
 */
async function takeOver(path: string, stale: LockInfo | null): Promise<boolean> {
  const aside = `${path}.stale-${process.pid}`;
  TEMPS.add(aside);
  try {
    try {
      await rename(path, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw new StoreFileError(`${path}: cannot take over a stale lock: ${fsProblem(err)}`);
    }
    const moved = await readInfo(aside);
    const same = moved !== 'gone' && (moved === null ? stale === null : stale !== null && moved.pid === stale.pid && moved.started_at === stale.started_at);
    if (!same) await link(aside, path).catch(() => undefined);
    return same;
  } finally {
    await dropTemp(aside);
  }
}
