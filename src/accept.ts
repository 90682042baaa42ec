import { type ChildProcess, spawn } from 'node:child_process';
import type { Server } from 'node:http';
import net from 'node:net';
import { HANDLE_ECHO_ENV, HANDLE_ECHO_SOURCE } from './handle-echo.js';
import { IN_EXECUTABLE } from './shipped.js';

/** How long the helper gets to start and hand each duplicate back before the server goes on with what it has. */
const ECHO_MS = 5_000;

/**
 * More listening handles on the same socket, so that a busy event loop accepts more than one
 * connection per turn.
 *
 * Since libuv 1.45 (Node 20) a listening handle accepts one connection each time the loop polls
 * it; the next waits for the next turn, and a turn of a busy sandbox takes tens of milliseconds,
 * so connections that arrive together (a CI fleet's shards starting, clients that open a
 * connection per request) wait in the kernel's queue, the k-th about k turns. Node 20 has no
 * `reusePort` (22.12), and the only way it gives a process another descriptor of a socket it has
 * is to receive one from another process: a short-lived helper (handle-echo.ts) is sent the
 * listening handle `count` times and sends each back. Each duplicate listens here, in the same
 * loop, and hands its connections to the HTTP server as the first handle does: the loop then
 * accepts up to `count` + 1 connections a turn. The helper never accepts; it exits once done.
 *
 * Starts at once and finishes in the background (the server answers meanwhile on its first
 * handle); `added` resolves with how many duplicates listen. Whatever fails (no helper, a platform
 * that cannot pass handles) leaves the server as it was, with one handle.
 */
export function acceptMore(server: net.Server, count: number): { added: Promise<number>; close(): Promise<void> } {
  const extras: net.Server[] = [];
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let closed = false;
  /** The wait for the helper's next handle, when one is under way. */
  let waiting: ((handle: unknown) => void) | null = null;
  const added = (async () => {
    if (count <= 0) return 0;
    const handle = (server as unknown as { _handle?: unknown })._handle;
    if (!handle) return 0;
    const helper = spawn(process.execPath, IN_EXECUTABLE ? [] : ['-e', HANDLE_ECHO_SOURCE], {
      env: { [HANDLE_ECHO_ENV]: '1' },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      windowsHide: true,
    });
    child = helper;
    // Gone (or could not start, when no exit will come): a wait for its next handle ends too.
    exited = new Promise((resolve) => {
      const gone = () => {
        waiting?.(null);
        resolve();
      };
      helper.once('exit', gone);
      helper.once('error', gone);
    });
    // One listener for the helper's life: a handle that comes back when nobody waits for it (after
    // a time-out, or a stop) is closed, so no copy of the socket is left listening.
    helper.on('message', (message: unknown, h?: { close(): void }) => {
      if (message !== 'back' || !h) return;
      if (waiting) waiting(h);
      else h.close();
    });
    try {
      for (let i = 0; i < count && !closed && helper.connected; i++) {
        const back = await new Promise<unknown>((resolve) => {
          const timer = setTimeout(() => waiting?.(null), ECHO_MS);
          timer.unref();
          waiting = (h) => {
            clearTimeout(timer);
            waiting = null;
            resolve(h);
          };
          helper.send('dup', handle as never, (err) => {
            if (err) waiting?.(null);
          });
        });
        if (back === null) break;
        if (closed) {
          (back as { close(): void }).close();
          break;
        }
        const extra = net.createServer();
        // Its connections as the HTTP server's own are made: no Nagle delay, half-open allowed.
        copySocketOptions(server, extra);
        extra.on('connection', (socket) => server.emit('connection', socket));
        extra.on('error', () => undefined);
        extra.listen(back as never);
        extras.push(extra);
      }
    } finally {
      // Killed, never disconnected: a disconnect asked while a handle sent to it waits for its
      // acknowledgement is carried out when that acknowledgement comes, and a handle the helper
      // sent back in the same read is then acknowledged on a channel already gone, which fails an
      // internal assertion of Node 20 and ends this process (a stop during the hand-over did).
      // The helper's exit closes the channel once what was read from it has been handled.
      helper.kill();
      child = null;
    }
    return extras.length;
  })().catch(() => extras.length);
  return {
    added,
    /** Stops adding, closes the helper and every added handle; resolves once the helper is gone and their connections have ended. */
    close() {
      closed = true;
      waiting?.(null);
      child?.kill();
      return Promise.all([exited, ...extras.splice(0).map((e) => new Promise<void>((resolve) => e.close(() => resolve())))]).then(() => undefined);
    },
  };
}

/** The options net.Server gives each connection it accepts, as `from` has them (an HTTP server: noDelay, allowHalfOpen). */
function copySocketOptions(from: net.Server, to: net.Server): void {
  const keys = ['noDelay', 'allowHalfOpen', 'keepAlive', 'keepAliveInitialDelay', 'pauseOnConnect'] as const;
  const a = from as unknown as Record<string, unknown>;
  const b = to as unknown as Record<string, unknown>;
  for (const k of keys) b[k] = a[k];
}

/**
 * The cap on open connections when connections come through more than one handle: Node's
 * `maxConnections` counts one server's own, so the HTTP server counts every connection it is
 * given, whichever handle accepted it, and closes at once any past `max`.
 */
export function capConnections(server: Server, max: number): void {
  const handlers = server.listeners('connection') as Array<(socket: net.Socket) => void>;
  server.removeAllListeners('connection');
  let open = 0;
  server.on('connection', (socket: net.Socket) => {
    if (open >= max) {
      socket.destroy();
      return;
    }
    open += 1;
    socket.once('close', () => {
      open -= 1;
    });
    for (const h of handlers) h.call(server, socket);
  });
}
