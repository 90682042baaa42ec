import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the files the package ships come from (package.json, fixtures/, scenarios/, and the
 * build's dist/ui and dist/verified-files.json): the package's folder on disk, or, in the
 * standalone executable (a Node single executable application made by
 * scripts/build-binary.js), the assets inside it. Every read of a shipped file goes through here.
 */

interface Sea {
  isSea(): boolean;
  getAsset(key: string): ArrayBuffer;
}

// node:sea exists from Node 20.12 (getBuiltinModule from 20.16); older, it is no executable.
const sea = process.getBuiltinModule?.('node:sea') as Sea | undefined;

/** Running as the standalone executable, whose shipped files are inside it. */
export const IN_EXECUTABLE = sea?.isSea() === true;

/**
 * The package's folder (where fixtures/ and scenarios/ ship), from src/ or dist/ alike. In the
 * executable it is the executable's own path: `<executable>/scenarios/default.json` names a
 * file inside it, and can never be a file on disk (the executable is no folder).
 */
export const PACKAGE_ROOT = IN_EXECUTABLE ? process.execPath : resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A path under the package as its asset key (`scenarios/default.json`), or null for one outside. */
export function shippedKey(file: string): string | null {
  const rel = relative(PACKAGE_ROOT, resolve(file));
  const key = rel.split('\\').join('/');
  if (key === '' || key === '..' || key.startsWith('../') || isAbsolute(rel)) return null;
  return key;
}

/** The bytes of a file inside the executable, or null (not the executable, or no such asset). */
export function assetOf(file: string): Buffer | null {
  const key = IN_EXECUTABLE ? shippedKey(file) : null;
  if (key === null || sea === undefined) return null;
  try {
    return Buffer.from(sea.getAsset(key));
  } catch {
    return null;
  }
}

/** What reading a missing asset throws: the same code as a missing file on disk. */
function missing(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such file inside the executable, open '${file}'`), { code: 'ENOENT', path: file });
}

/** In the executable, a path under PACKAGE_ROOT is inside it (or missing); any other path is on disk. */
const inside = (file: string) => IN_EXECUTABLE && shippedKey(file) !== null;

/** A file's text: a shipped file from wherever the package's files are, any other from disk. */
export async function readText(file: string): Promise<string> {
  if (!inside(file)) return readFile(file, 'utf8');
  const bytes = assetOf(file);
  if (bytes === null) throw missing(file);
  return bytes.toString('utf8');
}

export function readTextSync(file: string): string {
  if (!inside(file)) return readFileSync(file, 'utf8');
  const bytes = assetOf(file);
  if (bytes === null) throw missing(file);
  return bytes.toString('utf8');
}

export function fileExists(file: string): boolean {
  return inside(file) ? assetOf(file) !== null : existsSync(file);
}
