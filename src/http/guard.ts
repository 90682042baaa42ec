import { networkInterfaces } from 'node:os';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Sandbox } from '../admin/sandbox.js';
import { RequestError } from '../errors.js';
import { isLoopback } from '../sandbox/config.js';
import { DELIVERY_HEADER } from '../webhooks/signing.js';
import { sendError } from './respond.js';

/**
 * The sandbox runs beside a browser: any web page the developer has open can send requests to
 * 127.0.0.1, and a page under a name the attacker controls can be made to resolve to it (DNS
 * rebinding). The control surface (control API, dashboard, event stream) therefore answers only
 * requests that name the sandbox by a host it answers to, that come from no other web page, and
 * whose bodies a web page cannot send cross-site without asking first (JSON). The model: the fixes
 * of webpack-dev-server, Vite and Jupyter for the same class of bug.
 */

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const ALWAYS = ['localhost', '127.0.0.1', '[::1]'];

/** A Host header's name: lower case, without its port or a trailing dot; null when it is no host. */
export function hostName(header: string): string | null {
  if (!/^[A-Za-z0-9.:[\]_-]+$/.test(header)) return null;
  try {
    return new URL(`http://${header}`).hostname.replace(/\.$/, '');
  } catch {
    return null;
  }
}

/** An address as a URL's hostname writes it (IPv6 in brackets). */
const asHostname = (address: string) => (address.includes(':') && !address.startsWith('[') ? `[${address}]` : address).toLowerCase();

/** Whether `name` is one of `patterns` (exact, or under a `*.suffix` pattern). */
function named(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => {
    const q = asHostname(p);
    return q.startsWith('*.') ? name.endsWith(q.slice(1)) && name.length > q.length - 1 : name === q;
  });
}

/** Where a server listens (`--host`) and the other names it answers to (`--allowed-host`). */
export interface Names {
  host: string;
  allowedHosts: readonly string[];
}

/** The Host names a sandbox answers to: the bound address (every address of the machine for a wildcard), localhost, the loopbacks, --allowed-host. */
function answersTo({ host, allowedHosts }: Names, name: string): boolean {
  if (ALWAYS.includes(name) || name === asHostname(host) || named(name, allowedHosts)) return true;
  if (host !== '0.0.0.0' && host !== '::') return false;
  return Object.values(networkInterfaces()).some((list) => (list ?? []).some((i) => asHostname(i.address) === name));
}

function refuse(message: string, status = 403): RequestError {
  return new RequestError(status, message);
}

/** Why a request's Host is refused, or null. A request without a Host header (HTTP/1.0 tools) is not a browser's. */
function hostProblem(names: Names, req: Request): RequestError | null {
  const header = req.headers.host;
  if (header === undefined) return null;
  const name = hostName(header);
  if (name !== null && answersTo(names, name)) return null;
  const allowed = [...ALWAYS, ...(ALWAYS.includes(asHostname(names.host)) ? [] : [asHostname(names.host)]), ...names.allowedHosts];
  return refuse(
    `Refused: the Host header ${JSON.stringify(header)} is not a name this sandbox answers to (${allowed.join(', ')}). ` +
      'A web page that reaches the sandbox under a name of its own (DNS rebinding) is refused this way. ' +
      `To reach it under that name, start it with --allowed-host ${name ?? '<name>'} (or SANDBOX_ALLOWED_HOST).`,
  );
}

/**
 * Why a request from a web page is refused (another page's Origin, a cross-site fetch), or null.
 * The sandbox's own pages send an Origin naming the Host they asked, or (behind a reverse proxy
 * that rewrites Host) a name given with --allowed-host.
 */
function originProblem(names: Names, req: Request): RequestError | null {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let own = false;
    try {
      const o = new URL(origin);
      const web = o.protocol === 'http:' || o.protocol === 'https:';
      const sameHost = req.headers.host !== undefined && o.host === new URL(`http://${req.headers.host}`).host;
      own = web && (sameHost || named(o.hostname, names.allowedHosts));
    } catch {
      own = false;
    }
    if (!own) {
      return refuse(
        `Refused: a request from the web page at ${origin} (its Origin header). The control API answers only the sandbox's own dashboard and tools that send no Origin (curl, the CLI, test code).`,
      );
    }
  }
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') {
    return refuse(
      `Refused: a request another web site's page made (Sec-Fetch-Site: ${site}). The control API answers only the sandbox's own dashboard and tools.`,
    );
  }
  return null;
}

const isJson = (type: string) => /^application\/([a-z0-9.+-]+\+)?json$/i.test(type.split(';')[0].trim());

/** Why a state-changing control request's body is refused (not JSON: what any page can send without asking), or null. */
function bodyProblem(req: Request): RequestError | null {
  if (SAFE_METHODS.has(req.method)) return null;
  const type = req.headers['content-type'];
  if (!type || isJson(type)) return null;
  return refuse(
    `The control API takes JSON: send Content-Type: application/json (not ${type.split(';')[0]}). A text, form or multipart body is what any web page can send to it without asking, so it is refused.`,
    415,
  );
}

const answerControl = (res: Response, err: RequestError) => {
  res.status(err.httpCode).json({ error: err.message });
};

/** Why a request to a control surface (the sandbox's, or show-trace's viewer) is refused: a foreign Host, another web page, a body a page can send without asking; or null. */
function controlSurfaceProblem(names: Names, req: Request): RequestError | null {
  return hostProblem(names, req) ?? originProblem(names, req) ?? bodyProblem(req);
}

/**
 * The rule of a read-only control surface in an app of its own (show-trace's viewer): a foreign
 * Host or another web page refused with `{ error }`; its writes are refused by the app itself.
 */
export function readOnlySurfaceGuard(names: Names): RequestHandler {
  return (req, res, next) => {
    const err = hostProblem(names, req) ?? originProblem(names, req);
    return err ? answerControl(res, err) : next();
  };
}

/**
 * Before anything else: the control surface (`/__sandbox…`) only for the sandbox's own pages and
 * tools; the emulated API refuses a foreign Host only on a non-loopback bind given --allowed-host
 * (server-to-server clients send no Origin, and use whatever name reaches them); and a webhook
 * attempt of this very sandbox that reached it (a URL that is its own, under a name resolved
 * after it was checked) does nothing.
 */
export function guard(sb: Sandbox): RequestHandler {
  const apiHosts = sb.config.allowedHosts.length > 0 && !isLoopback(sb.config.host);
  return (req: Request, res: Response, next: NextFunction) => {
    const control = req.url.startsWith('/__sandbox');
    const delivery = req.headers[DELIVERY_HEADER.toLowerCase()];
    if (typeof delivery === 'string' && sb.webhooks.isOwnAttempt(delivery)) {
      const err = refuse(`Refused: this request is the sandbox's own webhook attempt (${DELIVERY_HEADER} ${delivery}): the sandbox never calls itself.`);
      return control ? answerControl(res, err) : sendError(res, err);
    }
    if (control) {
      const err = controlSurfaceProblem(sb.config, req);
      return err ? answerControl(res, err) : next();
    }
    const err = apiHosts ? hostProblem(sb.config, req) : null;
    return err ? sendError(res, err) : next();
  };
}
