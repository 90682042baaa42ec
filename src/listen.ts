import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type NetworkInterfaceInfo, networkInterfaces } from 'node:os';
import type { Express } from 'express';
import { acceptMore, capConnections } from './accept.js';
import type { SandboxApp } from './app.js';
import { precompileParsers } from './contract/parse.js';
import { ConfigError } from './sandbox/config.js';

/** Limits on clients: slow or idle ones cannot hold the server (see docs/operations.md "Running a shared sandbox"). */
export interface ServerLimits {
  maxConnections: number;
  headersTimeout: number;
  requestTimeout: number;
  /** Listening handles beside the first on the same port (accept.ts): a busy loop accepts up to this + 1 connections a turn. */
  acceptHandles?: number;
  /** Told, once the helper is done, how many of the `acceptHandles` it added (fewer: it could not start, or this platform cannot pass handles). */
  onAcceptHandles?: (added: number, asked: number) => void;
}

/** What the command logs once the handles beside the first were added, or fewer than asked could be. */
export function acceptHandlesNotice(added: number, asked: number): { level: 'info' | 'warn'; message: string } {
  if (added >= asked) return { level: 'info', message: `accepting on ${added + 1} listening handles: up to ${added + 1} new connections a turn` };
  return {
    level: 'warn',
    message:
      `accepting on ${added + 1} listening handle${added === 0 ? '' : 's'}, not the ${asked + 1} asked (--accept-handles ${asked}): ` +
      'the helper that hands the duplicates back could not start or pass them here. Everything works; connections that arrive together wait a turn of the event loop each.',
  };
}

/** Each server's added listening handles (accept.ts): closed with it, before it stops listening. */
const ACCEPTING = new WeakMap<Server, { close(): Promise<void> }>();

/**
 * The server's request and response classes, made with the prototypes Express gives every request
 * and response (`app.request`, `app.response`): Express's `app.handle` switches each one's prototype
 * to those, and a switch to the prototype an object has already changes nothing. Without it each
 * request and response changes shape once created, and the HTTP internals that handle it see two.
 */
export function expressClasses(app: Express): { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse } {
  const Incoming = function (this: IncomingMessage, ...args: ConstructorParameters<typeof IncomingMessage>) {
    IncomingMessage.apply(this, args);
  } as unknown as typeof IncomingMessage;
  Incoming.prototype = app.request;
  const Outgoing = function (this: ServerResponse, ...args: ConstructorParameters<typeof ServerResponse>) {
    ServerResponse.apply(this, args);
  } as unknown as typeof ServerResponse;
  Outgoing.prototype = app.response;
  return { IncomingMessage: Incoming, ServerResponse: Outgoing };
}

export function listen(app: Express, port: number, host: string, limits?: ServerLimits): Promise<Server> {
  const server = createServer(
    {
      ...expressClasses(app),
      ...(limits
        ? {
            headersTimeout: limits.headersTimeout,
            requestTimeout: limits.requestTimeout,
            keepAliveTimeout: Math.min(5_000, limits.headersTimeout),
            // How often the timeouts above are checked (Node's default is 30 s).
            connectionsCheckingInterval: Math.min(1_000, limits.headersTimeout),
          }
        : {}),
    },
    app,
  );
  const handles = limits?.acceptHandles ?? 0;
  // With handles beside the first (added by addHandles once it listens), the cap counts every
  // connection the server is given, whichever handle accepted it (accept.ts).
  if (limits && handles > 0) capConnections(server, limits.maxConnections);
  else if (limits) server.maxConnections = limits.maxConnections;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

const hostPart = (address: string) => (address.includes(':') ? `[${address}]` : address);

/** The base URL of a listening server, for this machine's clients (a wildcard is reached on 127.0.0.1). */
export function urlOf(server: Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${hostPart(h)}:${port}`;
}

/** The address and port actually bound, and for a wildcard every address of the machine it answers on. */
export function boundAddresses(server: Server): { bound: string; reachable: string[] } {
  const { address, port } = server.address() as AddressInfo;
  const bound = `${hostPart(address)}:${port}`;
  if (address !== '0.0.0.0' && address !== '::') return { bound, reachable: [`http://${bound}`] };
  const reachable = Object.values(networkInterfaces())
    .flat()
    .filter((i): i is NetworkInterfaceInfo => i !== undefined && (address === '::' || i.family === 'IPv4') && !i.address.startsWith('fe80'))
    .map((i) => `http://${hostPart(i.address)}:${port}`);
  return { bound, reachable };
}

/**
 * Stops the servers: no new connections, idle keep-alive sockets closed now. `graceMs` lets
 * requests in flight finish for that long before their sockets are cut; 0 cuts them at once.
 */
export async function closeServers(servers: Server[], graceMs: number): Promise<void> {
  // The added handles first (no connection comes through them after this); their connections
  // are the HTTP server's, cut or let finish with its own, and waited for as its own are.
  const extras = servers.map((s) => ACCEPTING.get(s)?.close());
  const force = setTimeout(() => {
    for (const s of servers) s.closeAllConnections();
  }, graceMs);
  force.unref();
  await Promise.all([
    ...servers.map(
      (s) =>
        new Promise<void>((resolve) => {
          s.close(() => resolve());
          if (graceMs === 0) s.closeAllConnections();
          else s.closeIdleConnections();
        }),
    ),
    ...extras,
  ]);
  clearTimeout(force);
}

/**
 * The listening handles beside the first (accept.ts), asked for once the server listens: a helper
 * process hands them over in the background (about 0.15 s of its own CPU, once), so that the
 * first burst of clients (a CI fleet's shards creating their merchants together) already finds
 * them. Added on the first burst instead, they came too late for it: the helper's start and the
 * hand-over (a turn of the event loop a handle) landed in its busiest turns, and 64 merchant
 * creations arriving together took 2.5 times as long (docs/performance.md).
 */
function addHandles(server: Server, limits: ServerLimits): void {
  const handles = limits.acceptHandles ?? 0;
  if (handles <= 0 || !server.listening) return;
  const more = acceptMore(server, handles);
  ACCEPTING.set(server, more);
  // Not told when the server stopped meanwhile: a stop cuts the hand-over short on purpose.
  void more.added.then((added) => {
    if (server.listening) limits.onAcceptHandles?.(added, handles);
  });
}

/** A sandbox app listening: the API (and checkout) servers and their base URLs. */
export interface Serving {
  servers: Server[];
  url: string;
  checkoutUrl: string;
  close(graceMs: number): Promise<void>;
}

/**
 * The sandbox learns where it listens, so that it never sends a webhook to itself; a
 * --webhook-url that is its own address is refused now (a ConfigError), before anything is sent.
 */
async function knowOwnAddresses(app: Express, servers: Server[]): Promise<void> {
  const sb = (app as Express & Partial<Pick<SandboxApp, 'sandbox'>>).sandbox;
  if (!sb) return;
  sb.webhooks.self.listening(servers.map((s) => ({ address: (s.address() as AddressInfo).address, port: (s.address() as AddressInfo).port })));
  const problem = sb.config.webhookUrl === null ? null : await sb.webhooks.self.problem(sb.config.webhookUrl);
  if (problem !== null) throw new ConfigError(`--webhook-url: ${problem}`);
}

/**
 * Listens on `port` and, when given, a second `checkoutPort` for the checkout API (the CLI's and
 * startSandbox's one listen sequence). If either cannot listen, whatever did is closed again.
 */
export async function serve(app: Express, host: string, port: number, checkoutPort: number | null, limits: ServerLimits): Promise<Serving> {
  const servers: Server[] = [];
  try {
    servers.push(await listen(app, port, host, limits));
    if (checkoutPort !== null) servers.push(await listen(app, checkoutPort, host, limits));
    await knowOwnAddresses(app, servers);
  } catch (err) {
    await closeServers(servers, 0);
    throw err;
  }
  // Request schemas compile once the servers listen, off the start-up path (or at first use);
  // then the helper that adds the listening handles starts, before the first burst of clients.
  setImmediate(precompileParsers);
  setImmediate(() => {
    for (const server of servers) addHandles(server, limits);
  });
  const url = urlOf(servers[0], host);
  return { servers, url, checkoutUrl: servers[1] ? urlOf(servers[1], host) : url, close: (graceMs) => closeServers(servers, graceMs) };
}
