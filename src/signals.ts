import { renameSync, writeFileSync } from 'node:fs';
import type { SandboxApp } from './app.js';
import type { Serving } from './listen.js';
import { gates } from './sandbox/gates.js';
import { ReportWriteError } from './sandbox/open.js';
import { RETRY_MS, type StartPoint, StartStopped, StoreWriteError } from './store/store.js';

export { EXIT_COVERAGE, EXIT_REVIEW } from './sandbox/gates.js';

/** Exit codes of a signal that stops a start, or of a second one, which stops at once: 128 + the signal's number. */
export const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * For tests of a stop during the start: `<point>:<marker file>` pauses the start at that named
 * point (start-points.ts), writes the marker once it is there, and waits for a signal; so a
 * test signals a start at an exact point, waiting on the marker rather than on time.
 */
export const PAUSE_VARIABLE = 'PAYOUT_SANDBOX_TEST_PAUSE';

/** How long a start signalled to stop may take to reach its next checkpoint before it exits at once (the exit hook removes the lock). */
const START_STOP_MS = 5_000;

/** The start, from the first line of main until the sandbox listens: what a SIGINT/SIGTERM meanwhile does. */
export interface StartWatch {
  /** The start's checkpoint: throws StartStopped once a signal came (and pauses there first when the test variable says so). */
  checkpoint(point: StartPoint): Promise<void>;
  /** Pauses at this point when the test variable says so, until a signal comes. */
  pause(point: StartPoint): Promise<void>;
  /** The signal that came during the start, or null. */
  readonly signal: string | null;
  /** The start is over (listening, or failed): signals are no longer the start's. */
  end(): void;
}

/**
 * From the first line of the start: a SIGINT or SIGTERM stops the start at its next checkpoint
 * (start-points.ts), where each layer lets go of what it took; the CLI then exits 130 / 143 with
 * nothing written. A second signal, or a start that reaches no checkpoint within START_STOP_MS,
 * exits at once (the lock and its temporary files are then removed by the exit hook).
 */
export function watchStart(env: NodeJS.ProcessEnv = process.env): StartWatch {
  let signal: string | null = null;
  let wake: (() => void) | null = null;
  let deadline: NodeJS.Timeout | null = null;
  const pause = /^([a-z]+):(.+)$/.exec(env[PAUSE_VARIABLE] ?? '');
  const onSignal = (name: string) => {
    if (signal !== null) {
      process.stderr.write(`payout-sandbox: ${name} again during start-up: stopping now\n`);
      process.exit(SIGNAL_EXIT[name] ?? 1);
    }
    signal = name;
    wake?.();
    // A step that hangs (a file system that does not answer) must not keep a stopped start up.
    deadline = setTimeout(() => {
      process.stderr.write(`payout-sandbox: ${name} during start-up, and no point to stop at within ${START_STOP_MS / 1000} s: stopping now\n`);
      process.exit(SIGNAL_EXIT[name] ?? 1);
    }, START_STOP_MS).unref();
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  const watch: StartWatch = {
    get signal() {
      return signal;
    },
    async pause(point) {
      if (pause?.[1] !== point || signal !== null) return;
      await new Promise<void>((resolve) => {
        // A pending promise alone would let the process exit: this timer keeps it waiting for the signal.
        const alive = setInterval(() => undefined, 60_000);
        wake = () => {
          clearInterval(alive);
          wake = null;
          resolve();
        };
        writeFileSync(`${pause[2]}.tmp`, `${point} ${process.pid}\n`);
        renameSync(`${pause[2]}.tmp`, pause[2]);
      });
    },
    async checkpoint(point) {
      await watch.pause(point);
      if (signal !== null) throw new StartStopped(signal, point);
    },
    end() {
      // Once listening, a signal is a stop like any other: it may wait for requests in flight, or a full disk.
      if (deadline) clearTimeout(deadline);
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
  return watch;
}

/**
 * Closes the sandbox; while its changes cannot be written (a full disk) the process stays up and
 * tries again, saying so, rather than exit with accepted changes only in memory.
 */
async function closeWhenWritten(app: SandboxApp): Promise<void> {
  let told = 0;
  for (let wait = RETRY_MS.first; ; wait = Math.min(wait * 2, RETRY_MS.last)) {
    try {
      await app.sandbox.close();
      if (told > 0) process.stderr.write('payout-sandbox: every change is on disk now; stopping\n');
      return;
    } catch (err) {
      if (!(err instanceof StoreWriteError)) throw err;
      if (told++ % 12 === 0) {
        process.stderr.write(
          `payout-sandbox: cannot stop yet: accepted changes are not all on disk (${err.message}). Retrying until they are: free space (or fix the file system). ` +
            'A second SIGTERM/SIGINT stops now, and those changes are lost.\n',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * SIGINT/SIGTERM: stop accepting, let in-flight requests finish (10 s at most), write
 * everything, exit 0. A second signal while that goes on exits at once (130 / 143). `pending`: a
 * signal that came once the sandbox listened, while the start finished: that stop begins now.
 */
export function stopOnSignals(app: SandboxApp, serving: Serving, pending: string | null = null): void {
  let stopping = false;
  const stop = async (signal: string) => {
    app.sandbox.logger.info({ signal }, 'stopping: finishing in-flight requests');
    // Responses held on the sandbox clock (a delay fault) are released so they can finish, event
    // streams (the dashboard's) end; then no new connections, and requests in flight get 10 s.
    app.sandbox.scheduler.stop();
    app.sandbox.changes.close();
    await serving.close(10_000);
    await closeWhenWritten(app);
    const { failures, code } = gates(app.sandbox);
    for (const f of failures) process.stderr.write(`payout-sandbox: ${f}\n`);
    process.exit(code);
  };
  const onSignal = (signal: string) => {
    if (stopping) {
      const unwritten = app.sandbox.store.failure ? '; changes not yet on disk are lost' : '';
      process.stderr.write(`payout-sandbox: ${signal} again: stopping now, without waiting for requests in flight${unwritten}\n`);
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    }
    stopping = true;
    stop(signal).catch((err: unknown) => {
      if (err instanceof ReportWriteError) process.stderr.write(`payout-sandbox: stopped, but ${err.message}\n`);
      else app.sandbox.logger.error({ err }, 'could not stop cleanly');
      process.exit(1);
    });
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  if (pending !== null) onSignal(pending);
  // Under `npm start` or npx (`npm start &`, then `kill $!`): the signal reaches the wrapper, which exits
  // without passing it on. A sandbox whose wrapper is gone stops as on SIGTERM, writing its
  // reports, rather than stay on its port with nobody to stop it.
  if (process.env.npm_lifecycle_event === 'start' || process.env.npm_lifecycle_event === 'npx') {
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid === parent || stopping) return;
      clearInterval(watch);
      process.stderr.write(`payout-sandbox: the npm process that started it (pid ${parent}) is gone: stopping\n`);
      onSignal('SIGTERM');
    }, PARENT_CHECK_MS);
    watch.unref();
  }
}

/** How often a sandbox started by npm looks whether npm is still there. */
const PARENT_CHECK_MS = 500;
