/**
 * The named points of a start at which it may be stopped (a SIGTERM or SIGINT before the sandbox
 * serves) or, in a test, paused: `lock` the lock's temporary file written, not yet linked into
 * place; `replay` the lock held and the document read, the change log not yet replayed; `open`
 * the store open, nothing written (not even a new store's fixtures); `listen` the runtime built,
 * not yet listening. And `ready`: listening, the lock's port and the ready file not yet written;
 * a signal from there on is a stop like any other (reports written), once they are.
 */
export type StartPoint = 'lock' | 'replay' | 'open' | 'listen' | 'ready';

/**
 * Called at each named point of a start. A throw there stops the start, and each layer lets go
 * of what it took on the way out (the lock's temporary file, the lock, the log's handle), as for
 * any start that fails: nothing of the data file is written.
 */
export type Checkpoint = (point: StartPoint) => Promise<void> | void;

/** The start was stopped by a signal at a checkpoint: the exit code is the signal's (130, 143). */
export class StartStopped extends Error {
  constructor(
    readonly signal: string,
    readonly point: StartPoint,
  ) {
    super(`${signal} during start-up (at "${point}"): stopped before serving`);
  }
}
