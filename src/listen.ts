import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(server)));
    server.once('error', reject);
  });
}

/** The base URL of a listening server (a wildcard host is shown as 127.0.0.1). */
export function urlOf(server: Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  const h = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return `http://${h}:${port}`;
}

/**
 * Stops the servers: no new connections, idle keep-alive sockets closed now. `graceMs` lets
 * requests in flight finish for that long before their sockets are cut; 0 cuts them at once.
 */
export async function closeServers(servers: Server[], graceMs: number): Promise<void> {
  const force = setTimeout(() => servers.forEach((s) => s.closeAllConnections()), graceMs);
  force.unref();
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((resolve) => {
          s.close(() => resolve());
          if (graceMs === 0) s.closeAllConnections();
          else s.closeIdleConnections();
        }),
    ),
  );
  clearTimeout(force);
}
