import { IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { listen } from '../src/listen.js';

/**
 * The server made by listen() creates each request and response with the prototypes Express gives
 * them (app.request, app.response), so Express's own prototype switch in app.handle changes
 * nothing (docs/performance.md: it cost more than a third of a status check). They are still
 * node's IncomingMessage and ServerResponse, and Express's helpers work on them as before.
 */

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function served(limits?: Parameters<typeof listen>[3]) {
  const app = express();
  app.get('/x', (req, res) => {
    res.set('X-Seen', req.get('x-asked') ?? '').json({ query: req.query.q, path: req.path });
  });
  server = await listen(app, 0, '127.0.0.1', limits);
  const seen: boolean[][] = [];
  server.prependListener('request', (req, res) => {
    seen.push([
      Object.getPrototypeOf(req) === app.request,
      Object.getPrototypeOf(res) === app.response,
      req instanceof IncomingMessage,
      res instanceof ServerResponse,
    ]);
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

test.each([
  ['without limits', undefined],
  ['with limits', { maxConnections: 10, headersTimeout: 5_000, requestTimeout: 5_000 }],
])('%s: a request and its response have Express’s prototypes from the start, and answer as Express answers', async (_name, limits) => {
  const { base, seen } = await served(limits);
  for (let i = 0; i < 2; i++) {
    const r = await fetch(`${base}/x?q=${i}`, { headers: { 'X-Asked': `a${i}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-seen')).toBe(`a${i}`);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await r.json()).toEqual({ query: String(i), path: '/x' });
  }
  const missing = await fetch(`${base}/nowhere`);
  expect(missing.status).toBe(404);
  expect(seen).toEqual([
    [true, true, true, true],
    [true, true, true, true],
    [true, true, true, true],
  ]);
});
