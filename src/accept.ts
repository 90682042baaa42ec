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
export function acceptMore(server: Server, count: number): { added: Promise<number>; close(): void } {
  const extras: net.Server[] = [];
  let child: ChildProcess | null = null;
  let closed = false;
  const added = (async () => {
    if (count <= 0) return 0;
    const handle = (server as unknown as { _handle?: unknown })._handle;
    if (!handle) return 0;
    child = spawn(process.execPath, IN_EXECUTABLE ? [] : ['-e', HANDLE_ECHO_SOURCE], {
      env: { [HANDLE_ECHO_ENV]: '1' },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      windowsHide: true,
    });
    const helper = child;
    helper.on('error', () => undefined); // could not start: nothing comes back, the wait below ends it
    try {
      for (let i = 0; i < count && !closed; i++) {
        const back = await new Promise<unknown>((resolve) => {
          const timer = setTimeout(() => done(null), ECHO_MS);
          const onMessage = (message: unknown, h: unknown) => {
            if (message === 'back') done(h ?? null);
          };
          const done = (h: unknown) => {
            clearTimeout(timer);
            helper.off('message', onMessage);
            helper.off('exit', onExit);
            resolve(h);
          };
          const onExit = () => done(null);
          helper.on('message', onMessage);
          helper.once('exit', onExit);
          if (!helper.connected) return done(null);
          helper.send('dup', handle as never, (err) => {
            if (err) done(null);
          });
        });
        if (back === null) break;
        if (closed) {
          (back as { close(): void }).close();
          break;
        }
        const extra = net.createServer();
        extra.on('connection', (socket) => server.emit('connection', socket));
        extra.on('error', () => undefined);
        extra.listen(back as never);
        extras.push(extra);
      }
    } finally {
      if (helper.connected) helper.disconnect();
      helper.kill();
      child = null;
    }
    return extras.length;
  })().catch(() => extras.length);
  return {
    added,
    close() {
      closed = true;
      child?.kill();
      for (const e of extras.splice(0)) e.close();
    },
  };
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
