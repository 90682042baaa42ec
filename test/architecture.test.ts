import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The shape of src/: every import points down the layers below (or stays in its layer), and
 * there are no cycles.
 */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

/** Lowest first. A file's layer is the first entry whose pattern matches its path under src/. */
const LAYERS: Array<[name: string, pattern: RegExp]> = [
  ['base', /^(vocab|own|money|time|duration|errors|behaviours|clock|random|faker|version|shipped|input-file|handle-echo|v8-tuning)\.ts$/],
  ['store', /^store\//],
  ['schedule', /^schedule\//],
  ['contract', /^contract\//],
  ['scenario', /^scenario\//],
  ['domain', /^domain\//],
  ['webhooks', /^webhooks\//],
  ['observe', /^observe\//],
  ['sandbox', /^sandbox\//],
  ['admin', /^admin\//],
  ['http', /^http\//],
  ['app', /^(app|listen|accept)\.ts$/],
  ['fidelity', /^fidelity\//],
  ['client', /^client\//],
  ['entry', /^(cli|index|banner|signals)\.ts$/],
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const files = filesUnder(SRC).map((f) => relative(SRC, f).split('\\').join('/'));

function layerOf(file: string): number {
  const i = LAYERS.findIndex(([, p]) => p.test(file));
  if (i < 0) throw new Error(`${file} is in no layer: add it to LAYERS`);
  return i;
}

function sourceOf(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(SRC, file), 'utf8'), ts.ScriptTarget.ES2022, true);
}

function importsOf(file: string): string[] {
  const out: string[] = [];
  for (const stmt of sourceOf(file).statements) {
    const spec = (ts.isImportDeclaration(stmt) || ts.isExportDeclaration(stmt)) && stmt.moduleSpecifier;
    if (spec && ts.isStringLiteral(spec) && spec.text.startsWith('.')) {
      out.push(
        relative(SRC, resolve(join(SRC, dirname(file)), spec.text))
          .split('\\')
          .join('/')
          .replace(/\.js$/, '.ts'),
      );
    }
  }
  return out;
}

test('every file belongs to a layer, and every import points to its own layer or one below', () => {
  const upward: string[] = [];
  for (const file of files) {
    for (const target of importsOf(file)) {
      if (layerOf(target) > layerOf(file)) upward.push(`${file} (${LAYERS[layerOf(file)][0]}) → ${target} (${LAYERS[layerOf(target)][0]})`);
    }
  }
  expect(upward).toEqual([]);
});

test('no import cycles', () => {
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (f: string, path: string[]) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') {
      cycles.push([...path.slice(path.indexOf(f)), f].join(' → '));
      return;
    }
    state.set(f, 'open');
    for (const t of graph.get(f) ?? []) visit(t, [...path, f]);
    state.set(f, 'done');
  };
  for (const f of files) visit(f, []);
  expect(cycles).toEqual([]);
});

/**
 * Files are cut by meaning, not by a line count: the longest files and functions are printed as
 * information (a long file that is one idea is fine), not held to a cap.
 */
afterAll(() => {
  const lengths = files.map((f) => [f, readFileSync(join(SRC, f), 'utf8').split('\n').length] as const).sort((a, b) => b[1] - a[1]);
  const functions: Array<[string, number]> = [];
  for (const file of files) {
    const sf = sourceOf(file);
    const walk = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        functions.push([`${file}:${start + 1}`, end - start + 1]);
      }
      ts.forEachChild(node, walk);
    };
    walk(sf);
  }
  functions.sort((a, b) => b[1] - a[1]);
  const rows = (list: ReadonlyArray<readonly [string, number]>) =>
    list
      .slice(0, 10)
      .map(([f, n]) => `  ${String(n).padStart(5)}  ${f}`)
      .join('\n');
  process.stdout.write(`\nlongest files (lines):\n${rows(lengths)}\nlongest functions (lines):\n${rows(functions)}\n`);
});
