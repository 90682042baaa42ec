import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The README is a doorway to docs/: every relative link there and in docs/*.md must reach a file
 * a clone of this repository has (never `../shared/…`, never dist/ or node_modules/), and every
 * `#anchor` a heading of the page it names.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const README_MAX_LINES = 250;

const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** Directories .gitignore leaves out of a clone (`dist/`, `node_modules/`, …). */
const ignoredDirs = readFileSync(join(ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l.endsWith('/') && !l.startsWith('#'))
  .map((l) => l.replace(/^\/|\/$/g, ''));

/** The page without fenced code blocks: a `#` line in a shell block is no heading. */
function withoutFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The page without code, fenced or inline: a link in code is an example, not a link. */
function prose(text: string): string {
  return withoutFences(text).replace(/(`+)[^`]*?\1/g, '');
}

/** Link targets: inline links and images `[text](target "title")`, and definitions `[ref]: target`. */
function linkTargets(text: string): string[] {
  const body = prose(text);
  const inline = [...body.matchAll(/!?\[[^\]]*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const defined = [...body.matchAll(/^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/gm)].map((m) => m[1]);
  return [...inline, ...defined].map((t) => t.replace(/^<|>$/g, ''));
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of withoutFences(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** What is wrong with one link of `page`, or null. */
function problem(page: string, target: string): string | null {
  if (external(target)) return null;
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  if (pathPart.startsWith('/')) return 'is absolute: link relative to the page';
  const file = pathPart === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), decodeURIComponent(pathPart));
  const inRepo = relative(ROOT, file);
  if (inRepo.startsWith('..') || resolve(ROOT, inRepo) !== file) return 'points outside the repository';
  const top = inRepo.split(sep)[0];
  if (ignoredDirs.includes(top)) return `points into ${top}/, which a clone does not have`;
  if (!existsSync(file)) return 'names no file';
  if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
    return `names no heading #${anchor} of ${relative(ROOT, file)}`;
  }
  return null;
}

test('there are pages to check', () => {
  expect(pages).toContain('README.md');
  expect(pages.length).toBeGreaterThan(1);
});

test.each(pages)('every relative link of %s reaches a file of the repository', (page) => {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const broken = linkTargets(text)
    .map((target) => [target, problem(page, target)] as const)
    .filter(([, why]) => why !== null)
    .map(([target, why]) => `${page}: (${target}) ${why}`);
  expect(broken).toEqual([]);
});

test("no page links to ../shared (users' clones do not have it)", () => {
  const offenders = pages.filter((page) => linkTargets(readFileSync(join(ROOT, page), 'utf8')).some((t) => t.includes('../shared')));
  expect(offenders).toEqual([]);
});

test(`README.md is a doorway: at most ${README_MAX_LINES} lines`, () => {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
  expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
});

test('the README links every page of docs/', () => {
  const linked = new Set(linkTargets(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((t) => t.split('#')[0]));
  const unlinked = pages.filter((p) => p !== 'README.md' && !linked.has(p));
  expect(unlinked).toEqual([]);
});

// The checker itself, on cases it must tell apart.
test('the link checker finds what it should', () => {
  expect(linkTargets('[a](docs/api.md) ![b](x.png "t") `[c](no.md)`\n[d]: <e.md>\n')).toEqual(['docs/api.md', 'x.png', 'e.md']);
  expect(linkTargets('```md\n[a](inside-code.md)\n```\n[b](b.md)')).toEqual(['b.md']);
  expect(anchorsOf('## Magic amounts (`scenarios/default.json`)\n## A\n## A')).toEqual(new Set(['magic-amounts-scenariosdefaultjson', 'a', 'a-1']));
  expect(problem('README.md', '../shared/SPEC.md')).toBe('points outside the repository');
  expect(problem('docs/api.md', '../../x.md')).toBe('points outside the repository');
  expect(problem('README.md', '/docs/api.md')).toBe('is absolute: link relative to the page');
  expect(problem('README.md', 'dist/index.js')).toMatch(/^points into dist\//);
  expect(problem('README.md', 'docs/nothing-here.md')).toBe('names no file');
  expect(problem('README.md', '#no-such-heading')).toMatch(/^names no heading/);
  expect(problem('README.md', 'https://example.com/x')).toBeNull();
});
