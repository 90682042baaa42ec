import { createHash } from 'node:crypto';
import { extname, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { readText, readTextSync } from './shipped.js';
import { PACKAGE_ROOT } from './version.js';

/**
 * The shipped input files (fixtures/, scenarios/) that `npm run build` validated, by path under
 * the package and SHA-256 of their text (dist/verified-files.json, written by
 * scripts/verify-shipped.js). A file whose text still has that digest need not be validated
 * again at start-up; any other file, or a changed one, is.
 */
export const VERIFIED_FILES = resolve(PACKAGE_ROOT, 'dist/verified-files.json');

let verified: Record<string, string> | null = null;
function verifiedDigests(): Record<string, string> {
  if (verified === null) {
    try {
      verified = JSON.parse(readTextSync(VERIFIED_FILES)) as Record<string, string>;
    } catch {
      verified = {};
    }
  }
  return verified;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export interface Document {
  value: unknown;
  /** A shipped file, unchanged since the build validated it. */
  verified: boolean;
}

/**
 * Reads one of the sandbox's input files (fixtures, scenario) and parses it: YAML for `.yaml` and
 * `.yml` when allowed, JSON otherwise. A failure names the file and is thrown as `makeError`.
 */
export async function readDocument(file: string, what: string, makeError: (message: string) => Error, options: { yaml: boolean }): Promise<Document> {
  let text: string;
  try {
    text = await readText(file);
  } catch (err) {
    throw makeError(`${file}: cannot read the ${what} file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const yaml = options.yaml && /^\.ya?ml$/i.test(extname(file));
  let value: unknown;
  try {
    value = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw makeError(`${file}: not valid ${yaml ? 'YAML' : 'JSON'} (${(err as Error).message.split('\n')[0]})`);
  }
  const known = verifiedDigests()[relative(PACKAGE_ROOT, resolve(file)).split('\\').join('/')];
  return { value, verified: known !== undefined && known === sha256(text) };
}
