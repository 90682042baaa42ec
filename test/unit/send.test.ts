import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { post } from '../../src/webhooks/send.js';

/** A receiver on 127.0.0.1 answering with `handler`; what it got, and how many connections it was opened. */
async function receiver(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  const got: { headers: IncomingMessage['headers']; body: string }[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      got.push({ headers: req.headers, body });
      handler(req, body, res);
    });
  });
  server.on('connection', () => (connections += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const close = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return { url, got, connections: () => connections, server, close };
}

const HEADERS = { 'Content-Type': 'application/json', 'X-Sandbox-Attempt': '1' };

test('the body is sent exactly, with its length in bytes and the headers given; the status is the answer', async () => {
  const r = await receiver((_req, _body, res) => res.writeHead(204).end());
  try {
    const raw = JSON.stringify({ name: 'Zoë ₹ payee' });
    const sent = await post(r.url, raw, HEADERS, 2000);
    expect(sent).toMatchObject({ status: 204, error: null });
    expect(sent.latency_ms).toBeGreaterThanOrEqual(0);
    expect(r.got[0]?.body).toBe(raw);
    expect(r.got[0]?.headers).toMatchObject({ 'content-type': 'application/json', 'x-sandbox-attempt': '1', 'content-length': String(Buffer.byteLength(raw)) });
  } finally {
    await r.close();
  }
});

test('a redirect is the answer: it is not followed', async () => {
  const r = await receiver((_req, _body, res) => res.writeHead(302, { Location: '/elsewhere' }).end());
  try {
    expect(await post(r.url, '{}', HEADERS, 2000)).toMatchObject({ status: 302, error: null });
    expect(r.got).toHaveLength(1);
  } finally {
    await r.close();
  }
});

test('attempts to one receiver reuse its connection', async () => {
  const r = await receiver((_req, _body, res) => res.writeHead(200).end('ok'));
  try {
    for (let i = 0; i < 3; i++) expect((await post(r.url, `{"n":${i}}`, HEADERS, 2000)).status).toBe(200);
    expect(r.got.map((g) => g.body)).toEqual(['{"n":0}', '{"n":1}', '{"n":2}']);
    expect(r.connections()).toBe(1);
  } finally {
    await r.close();
  }
});

test('the answer is the status line: a body that never ends does not hold it, and its connection is closed when the time is up', async () => {
  const r = await receiver((_req, _body, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('still going');
  });
  try {
    const closed = new Promise<void>((resolve) => r.server.on('connection', (s) => s.on('close', () => resolve())));
    const controller = new AbortController();
    expect(await post(r.url, '{}', HEADERS, 300, controller)).toMatchObject({ status: 200, error: null });
    await closed;
    // Cut off without touching the caller's controller: the attempt was answered.
    expect(controller.signal.aborted).toBe(false);
  } finally {
    await r.close();
  }
});

test('no answer within the time: the error says so', async () => {
  const r = await receiver(() => undefined);
  try {
    expect(await post(r.url, '{}', HEADERS, 150)).toMatchObject({ status: null, error: 'no answer within 150 ms' });
  } finally {
    await r.close();
  }
});

test("a caller's abort ends the attempt with its reason", async () => {
  let arrived: () => void = () => undefined;
  const received = new Promise<void>((resolve) => (arrived = resolve));
  const r = await receiver(() => arrived());
  try {
    const controller = new AbortController();
    const attempt = post(r.url, '{}', HEADERS, 5000, controller);
    await received;
    controller.abort(new Error('the sandbox is stopping'));
    expect(await attempt).toMatchObject({ status: null, error: 'the sandbox is stopping' });
  } finally {
    await r.close();
  }
});

test('a refused connection is named by its code; a URL that is no http(s) URL is an error, not a throw', async () => {
  const r = await receiver(() => undefined);
  const url = r.url;
  await r.close();
  expect(await post(url, '{}', HEADERS, 2000)).toMatchObject({ status: null, error: 'ECONNREFUSED' });
  expect(await post('ftp://127.0.0.1/hooks', '{}', HEADERS, 2000)).toMatchObject({ status: null, error: 'not an http(s) URL: ftp:' });
  expect((await post('not a url', '{}', HEADERS, 2000)).status).toBeNull();
});

test('a 101 switching protocols is an answer (not a 2xx), not an attempt left waiting', async () => {
  const server = createServer();
  server.on('upgrade', (_req, socket) => socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    expect(await post(url, '{}', { ...HEADERS, Connection: 'Upgrade', Upgrade: 'websocket' }, 2000)).toMatchObject({ status: 101, error: null });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('a receiver that announces Keep-Alive: timeout=2 gets a new connection once its idle one is closed a second before', async () => {
  const r = await receiver((_req, _body, res) => res.writeHead(200).end('ok'));
  r.server.keepAliveTimeout = 2000;
  try {
    // The first connection, closed by the sandbox's side after a second of idleness (the receiver would close it at 2 s).
    const closed = new Promise<void>((resolve) => r.server.once('connection', (s) => s.once('close', () => resolve())));
    expect((await post(r.url, '{}', HEADERS, 2000)).status).toBe(200);
    await closed;
    expect((await post(r.url, '{}', HEADERS, 2000)).status).toBe(200);
    expect(r.connections()).toBe(2);
  } finally {
    await r.close();
  }
});

test('port 0, credentials in the URL and a header node refuses are errors, nothing sent', async () => {
  const r = await receiver((_req, _body, res) => res.writeHead(204).end());
  try {
    expect(await post('http://127.0.0.1:0/hooks', '{}', HEADERS, 2000)).toMatchObject({ status: null, error: 'bad port: 0' });
    const port = (r.server.address() as AddressInfo).port;
    const withCredentials = await post(`http://user:s3cret@127.0.0.1:${port}/hooks`, '{}', HEADERS, 2000);
    expect(withCredentials).toMatchObject({ status: null, error: 'a URL with credentials (user:password@) is not sent to' });
    expect(await post(r.url, '{}', { ...HEADERS, 'X-Bad': 'a\nb' }, 2000)).toMatchObject({ status: null, error: 'ERR_INVALID_CHAR' });
    expect(r.got).toHaveLength(0);
  } finally {
    await r.close();
  }
});
