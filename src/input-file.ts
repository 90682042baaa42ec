import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';

/**
 * Reads one of the sandbox's input files (fixtures, scenario) and parses it: YAML for `.yaml` and
 * `.yml` when allowed, JSON otherwise. A failure names the file and is thrown as `makeError`.
 */
export async function readDocument(
  file: string,
  what: string,
  makeError: (message: string) => Error,
  options: { yaml: boolean },
): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw makeError(`${file}: cannot read the ${what} file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const yaml = options.yaml && /^\.ya?ml$/i.test(extname(file));
  try {
    return yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw makeError(`${file}: not valid ${yaml ? 'YAML' : 'JSON'} (${(err as Error).message.split('\n')[0]})`);
  }
}
