import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { reason, send } from '../src/client/http.js';

/**
 * The companion's HTTP client (src/client/http.ts `send`, node:http instead of fetch): it fails
 * where the verbs look, as fetch did: a time-out by its signal (name TimeoutError) before the
 * answer or while the body is read, a connection silent too long (ETIMEDOUT), a body cut short;
 * and an abort after the answer with nobody reading is no error of the process.
 */

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) s.close();
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  server.on('connection', (s) => sockets.push(s));
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

test('an answer: status, ok, headers (several values joined), the body as text or JSON, read once', async () => {
  const url = await serve((req, res) => {
    res.setHeader('x-twice', ['a', 'b']);
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, got: req.headers['x-given'] }));
  });
  const a = await send(`${url}/x`, { method: 'POST', headers: { 'X-Given': 'yes' }, body: '{}' });
  expect({ status: a.status, ok: a.ok, type: a.headers.get('Content-Type'), twice: a.headers.get('x-twice'), none: a.headers.get('x-none') }).toEqual({
    status: 201,
    ok: true,
    type: 'application/json',
    twice: 'a, b',
    none: null,
  });
  expect(await a.json()).toEqual({ method: 'POST', got: 'yes' });
  expect(await a.text()).toBe('{"method":"POST","got":"yes"}');
});

test("a signal's time-out before the answer, and while the body is read: rejected with the signal's TimeoutError", async () => {
  const silent = await serve(() => undefined);
  const before = await send(silent, { signal: AbortSignal.timeout(100) }).catch((e: Error) => e);
  expect((before as Error).name).toBe('TimeoutError');
  expect(reason(before)).toMatch(/^no answer within/);
  const slowBody = await serve((_req, res) => {
    res.writeHead(200).write('part');
  });
  const answer = await send(slowBody, { signal: AbortSignal.timeout(150) });
  expect(answer.status).toBe(200);
  expect(((await answer.text().catch((e: Error) => e)) as Error).name).toBe('TimeoutError');
});

test('a connection silent longer than idleMs is given up (ETIMEDOUT); a body cut short rejects; an abort after the answer nobody reads is no error', async () => {
  const silent = await serve(() => undefined);
  const idle = await send(silent, { idleMs: 100 }).catch((e: Error) => e);
  expect(reason(idle)).toBe('ETIMEDOUT');
  const cut = await serve((req, res) => {
    res.writeHead(200, { 'content-length': '100' }).write('only part');
    setImmediate(() => req.socket.destroy());
  });
  const a = await send(cut);
  await expect(a.text()).rejects.toThrow();
  const held = await serve((_req, res) => {
    res.writeHead(200).write('open');
  });
  const controller = new AbortController();
  const b = await send(held, { signal: controller.signal });
  controller.abort();
  // The process goes on (an 'error' with no listener would have thrown out of the event loop).
  await new Promise((resolve) => setImmediate(resolve));
  expect(b.status).toBe(200);
});
