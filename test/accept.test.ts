import { once } from 'node:events';
import { createServer } from 'node:http';
import net from 'node:net';
import { acceptMore } from '../src/accept.js';
import { acceptHandlesNotice } from '../src/listen.js';

/**
 * More listening handles on one socket (src/accept.ts): the duplicates a helper process hands
 * back listen in this loop and give their connections to the same server, made as that server
 * makes its own; closing them waits for their connections, and leaves no helper behind.
 */

const servers: Array<{ close(): void }> = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** `server` listening on a free port of 127.0.0.1 with `handles` more handles, all added. */
async function withHandles(server: net.Server, handles: number) {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const more = acceptMore(server, handles);
  expect(await more.added).toBe(handles);
  return { more, port: (server.address() as net.AddressInfo).port };
}

function connectTo(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s)).on('error', reject);
  });
}

test('connections through the duplicates reach the HTTP server as its own do (half-open allowed), and every one is answered', async () => {
  const halfOpen: boolean[] = [];
  const server = createServer((req, res) => {
    halfOpen.push(req.socket.allowHalfOpen);
    res.end('ok');
  });
  const { more, port } = await withHandles(server, 4);
  const answers = await Promise.all(
    Array.from({ length: 30 }, () => fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' } }).then((r) => r.text())),
  );
  expect(new Set(answers)).toEqual(new Set(['ok']));
  expect(halfOpen).toHaveLength(30);
  expect(new Set(halfOpen)).toEqual(new Set([true]));
  await more.close();
});

test('close() resolves once the connections the duplicates accepted have ended, not before; the port then no longer listens', async () => {
  const server = net.createServer();
  const { more, port } = await withHandles(server, 2);
  // Connections until some came through a duplicate (its server is not this one).
  const throughDuplicates: net.Socket[] = [];
  const accepted: net.Socket[] = [];
  server.on('connection', (s: net.Socket & { server?: unknown }) => {
    accepted.push(s);
    if (s.server !== server) throughDuplicates.push(s);
  });
  const clients: net.Socket[] = [];
  for (let i = 0; i < 40 && throughDuplicates.length === 0; i++) {
    clients.push(await connectTo(port));
    while (accepted.length < clients.length) await new Promise((r) => setImmediate(r));
  }
  expect(throughDuplicates.length).toBeGreaterThan(0);
  let closed = false;
  const closing = more.close().then(() => (closed = true));
  server.close();
  for (const s of accepted) if (!throughDuplicates.includes(s)) s.destroy();
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  expect(closed).toBe(false);
  for (const s of throughDuplicates) s.destroy();
  await closing;
  for (const c of clients) c.destroy();
  // Nothing listens on the port any more: neither a duplicate nor the helper's copy.
  await expect(connectTo(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
});

test('closed while the helper is still handing handles over: it stops, the helper is gone, nothing listens', async () => {
  const server = net.createServer();
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  const more = acceptMore(server, 16);
  await more.close();
  expect(await more.added).toBeLessThan(16);
  server.close();
  await once(server, 'close');
  await expect(connectTo(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
});

test('what the command logs once the handles are added: how many, or, when the helper added fewer than asked, a warning that says what it costs', () => {
  expect(acceptHandlesNotice(16, 16)).toEqual({ level: 'info', message: 'accepting on 17 listening handles: up to 17 new connections a turn' });
  const none = acceptHandlesNotice(0, 16);
  expect(none.level).toBe('warn');
  expect(none.message).toMatch(
    /^accepting on 1 listening handle, not the 17 asked \(--accept-handles 16\): the helper .* could not start or pass them here\. Everything works; connections that arrive together wait a turn of the event loop each\.$/,
  );
  expect(acceptHandlesNotice(3, 16)).toMatchObject({ level: 'warn', message: expect.stringMatching(/^accepting on 4 listening handles, not the 17 asked/) });
});
