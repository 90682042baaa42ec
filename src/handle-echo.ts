/**
 * The helper process of accept.ts: each listening handle its parent sends it goes straight back
 * (the parent receives a second descriptor of the same socket) and is closed here, so this
 * process never accepts a connection. It leaves when its parent lets go of the channel. Kept apart
 * from everything else so that the executable's entry loads nothing more for it.
 */
export const HANDLE_ECHO_ENV = 'PAYOUT_SANDBOX_HANDLE_ECHO';

export function runHandleEcho(): void {
  process.on('message', (message: unknown, handle?: { close(): void }) => {
    if (message !== 'dup' || !handle) return;
    process.send?.('back', handle as never, () => handle.close());
  });
  process.on('disconnect', () => process.exit(0));
}

/** The same function as a `node -e` program (where the sandbox runs from node, not as its executable): it uses nothing but `process`. */
export const HANDLE_ECHO_SOURCE = `(${runHandleEcho.toString()})();`;
