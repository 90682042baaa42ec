import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on 127.0.0.1 for tests. `respond` decides each answer: a status code, or
 * 'hang' to hold the request open until the receiver is closed.
 */
export async function startReceiver(respond: (r: Received, n: number) => number | 'hang' = () => 200) {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const r = { headers: req.headers, body };
      received.push(r);
      const answer = respond(r, received.length);
      if (answer === 'hang') hanging.push(res);
      else res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
      for (const w of waiters.splice(0)) {
        if (received.length >= w.n) w.resolve();
        else waiters.push(w);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    /** Resolves once `n` requests have arrived (rejects after 5 s, so a test cannot hang). */
    waitFor(n: number): Promise<void> {
      if (received.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${received.length} of ${n} webhook requests arrived`)), 5000);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    bodies: () => received.map((r) => JSON.parse(r.body)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
