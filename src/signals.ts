import type { SandboxApp } from './app.js';
import type { Serving } from './listen.js';
import { gates } from './sandbox/gates.js';
import { RETRY_MS, StoreWriteError } from './store/store.js';

export { EXIT_COVERAGE, EXIT_REVIEW } from './sandbox/gates.js';

/** Exit codes of a second signal, which stops at once: 128 + the signal's number. */
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

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
 * everything, exit 0. A second signal while that goes on exits at once (130 / 143).
 */
export function stopOnSignals(app: SandboxApp, serving: Serving): void {
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
      app.sandbox.logger.error({ err }, 'could not stop cleanly');
      process.exit(1);
    });
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
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
