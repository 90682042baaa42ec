import type { SandboxApp } from './app.js';
import type { Serving } from './listen.js';
import { coverageShortfall } from './runtime/coverage.js';

/** Exit code of a shutdown below --coverage-min. */
export const EXIT_COVERAGE = 3;

/** Exit codes of a second signal, which stops at once: 128 + the signal's number. */
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

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
    await app.sandbox.close();
    const shortfall = coverageShortfall(app.sandbox.coverage.report(null), app.sandbox.config.coverageMin);
    if (shortfall) process.stderr.write(`payout-sandbox: ${shortfall}\n`);
    process.exit(shortfall ? EXIT_COVERAGE : 0);
  };
  const onSignal = (signal: string) => {
    if (stopping) {
      process.stderr.write(`payout-sandbox: ${signal} again: stopping now, without waiting for requests in flight\n`);
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
}
