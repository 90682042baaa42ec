import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import express, { type RequestHandler } from 'express';
import type { ChangeFeed } from '../../observe/changes.js';
import { assetOf, IN_EXECUTABLE } from '../../shipped.js';
import { PACKAGE_ROOT } from '../../version.js';

/** Where the build puts the dashboard's files (the page, its script, the vendored Preact + htm). */
export const DASHBOARD_DIR = resolve(PACKAGE_ROOT, 'dist/ui');

/** The sandbox's icon (a ₹ on the accent blue): the dashboard's, and what a browser asks at /favicon.ico. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5cad"/><text x="16" y="23" font-family="sans-serif" font-size="20" font-weight="700" text-anchor="middle" fill="#fff">₹</text></svg>';

/** GET /favicon.ico: the icon, answered before anything else (not logged, not journaled: no merchant's traffic). */
export const favicon: RequestHandler = (_req, res) => {
  res.status(200).type('image/svg+xml').set('Cache-Control', 'public, max-age=86400').send(FAVICON_SVG);
};

/** The dashboard's static files at /__sandbox/ui (index.html for the page itself). */
export function dashboardFiles(): RequestHandler {
  if (IN_EXECUTABLE) return dashboardAssets();
  if (!existsSync(DASHBOARD_DIR)) {
    return (_req, res) => {
      res.status(404).type('text/plain').send('The dashboard is not built: run npm run build.');
    };
  }
  const files = express.static(DASHBOARD_DIR, { index: 'index.html', maxAge: 0, etag: false });
  return (req, res, next) =>
    files(req, res, (err?: unknown) => {
      if (err) return next(err);
      res.status(404).json({ error: `No dashboard file ${req.path}.` });
    });
}

/** The dashboard's files from inside the standalone executable (src/shipped.ts): no disk. */
function dashboardAssets(): RequestHandler {
  const types: Record<string, string> = { '.html': 'html', '.js': 'text/javascript', '.css': 'css', '.txt': 'text/plain', '.png': 'png', '.svg': 'svg' };
  return (req, res) => {
    const file = resolve(DASHBOARD_DIR, req.path === '/' ? 'index.html' : req.path.slice(1));
    const bytes = file.startsWith(`${DASHBOARD_DIR}/`) && (req.method === 'GET' || req.method === 'HEAD') ? assetOf(file) : null;
    if (bytes === null) {
      res.status(404).json({ error: `No dashboard file ${req.path}.` });
      return;
    }
    res
      .status(200)
      .type(types[extname(file)] ?? 'application/octet-stream')
      .set('Cache-Control', 'public, max-age=0')
      .send(bytes);
  };
}

/**
 * GET /__sandbox/events: server-sent events, one `change` event (`{"kinds":[…]}`) whenever
 * records change or a clock moves (gathered, at most every 100 ms), and a comment every 15 s so
 * proxies keep the connection. The dashboard reads it with fetch (so it can send the admin token).
 */
export function changeStream(changes: ChangeFeed): RequestHandler {
  return (req, res) => {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    res.write('retry: 1000\n: connected\n\n');
    const stop = changes.listen(
      (e) => res.write(`event: change\ndata: ${JSON.stringify(e)}\n\n`),
      () => res.end(),
    );
    const beat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    beat.unref();
    req.on('close', () => {
      stop();
      clearInterval(beat);
    });
  };
}
