import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import type { RequestHandler } from 'express';
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

/** A dashboard file's bytes by its path under dist/ui (`views/review.js`), or null when there is none. */
type ReadFile = (rel: string) => Promise<Buffer | null>;

/**
 * The dashboard's static files at /__sandbox/ui (index.html for the page itself), from memory: in
 * the standalone executable its assets (src/shipped.ts), on disk the build's dist/ui, read whole
 * the first time the dashboard is asked for and kept (about 300 KB, most of it the script's
 * source map, read only by developer tools). A page load asks for three of them (the page, its
 * style, its one script: scripts/build-ui.js); from memory each is an answer, with no trip to
 * libuv's thread pool waiting for a turn of a busy event loop. The files served are the ones
 * built when the sandbox first served its dashboard (a build while it runs is served after a
 * restart, as the executable's are); only those files are, by name, so no path leads outside.
 */
export function dashboardFiles(): RequestHandler {
  if (!IN_EXECUTABLE && !existsSync(DASHBOARD_DIR)) {
    return (_req, res) => {
      res.status(404).type('text/plain').send('The dashboard is not built: run npm run build.');
    };
  }
  const read = IN_EXECUTABLE ? executableFiles() : builtFiles(DASHBOARD_DIR);
  return (req, res, next) => {
    const notFound = () => res.status(404).json({ error: `No dashboard file ${req.path}.` });
    let rel: string;
    try {
      rel = decodeURIComponent(req.path === '/' ? 'index.html' : req.path.slice(1));
    } catch {
      notFound();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      notFound();
      return;
    }
    read(rel).then((bytes) => {
      if (bytes === null) {
        notFound();
        return;
      }
      res
        .status(200)
        .type(extname(rel) || 'application/octet-stream')
        .set('Cache-Control', 'public, max-age=0')
        .send(bytes);
    }, next);
  };
}

/** The dashboard's files inside the standalone executable (src/shipped.ts): no disk. */
function executableFiles(): ReadFile {
  return async (rel) => {
    const file = resolve(DASHBOARD_DIR, rel);
    return file.startsWith(`${DASHBOARD_DIR}/`) ? assetOf(file) : null;
  };
}

/** Every file under `dir` by its path there (`vendor/LICENSE-htm.txt`), folders walked (readdir's `recursive` needs Node 20.1). */
async function filesUnder(dir: string, prefix = ''): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) names.push(...(await filesUnder(dir, name)));
    else if (entry.isFile()) names.push(name);
  }
  return names;
}

/** Every file of `dir` (the build's dist/ui), read once, together, on the first call; a failed read is tried again at the next. */
export function builtFiles(dir: string): ReadFile {
  let files: Promise<Map<string, Buffer>> | null = null;
  const load = async () => {
    const names = await filesUnder(dir);
    return new Map(await Promise.all(names.map(async (name): Promise<[string, Buffer]> => [name, await readFile(join(dir, name))])));
  };
  return async (rel) => {
    if (files === null) {
      files = load();
      // A failed read (the folder not there: a build moving it into place) is tried again at the next request.
      files.catch(() => {
        files = null;
      });
    }
    return (await files).get(rel) ?? null;
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
