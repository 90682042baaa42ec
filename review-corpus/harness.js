// The review corpus: merchant clients written from the docs, each run against a sandbox of its own,
// and the integration review scored against what each client is known to do (docs/review.md,
// "How well it judges"). `npm run review:corpus` prints the table; test/review-corpus.test.ts
// asserts no false positive and no miss.
import { readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startSandbox } from 'payout-sandbox';

const CLIENTS = fileURLToPath(new URL('./clients/', import.meta.url));

/**
 * Every client of clients/: modules exporting `client` =
 * `{ name, about, correct, expect: [rule ids], ready?, options?, run({ sb }) }` (README.md).
 */
export async function loadClients(only = null) {
  const files = (await readdir(CLIENTS)).filter((f) => f.endsWith('.js')).sort();
  const clients = [];
  for (const f of files) {
    const { client } = await import(pathToFileURL(`${CLIENTS}${f}`).href);
    if (!client || typeof client.run !== 'function') throw new Error(`${f}: exports no client with run()`);
    if (only === null || only.includes(client.name)) clients.push({ ...client, file: f });
  }
  return clients;
}

/** Runs one client on a sandbox of its own (manual clock, memory, seeded); its merchant's review. */
export async function runClient(client, seed = 1) {
  const sb = await startSandbox({ clock: 'manual', seed, ...(client.options ?? {}) });
  try {
    await client.run({ sb });
    await sb.settleWebhooks();
    const review = sb.review();
    const failed = review.rules.filter((r) => r.result === 'failed').map((r) => r.rule);
    return { review, failed };
  } finally {
    await sb.stop().catch(() => undefined);
  }
}

/**
 * Scores the corpus: per client what was flagged against what was expected, and per rule the
 * true positives (flagged where the client is known to break it), false positives (flagged where
 * it is not) and misses (known to break it, not flagged).
 */
export async function scoreCorpus({ only = null, log = () => undefined } = {}) {
  const clients = await loadClients(only);
  const runs = [];
  for (const c of clients) {
    const started = performance.now();
    let outcome;
    try {
      outcome = await runClient(c);
    } catch (err) {
      outcome = { error: err instanceof Error ? (err.stack ?? err.message) : String(err), failed: [], review: null };
    }
    const expected = new Set(c.expect ?? []);
    const flagged = new Set(outcome.failed);
    const run = {
      client: c.name,
      file: c.file,
      correct: c.correct === true,
      expected: [...expected],
      flagged: [...flagged],
      falsePositives: [...flagged].filter((r) => !expected.has(r)),
      misses: [...expected].filter((r) => !flagged.has(r)),
      verdict: outcome.review?.summary.verdict ?? null,
      unprovenHigh: outcome.review?.rules.filter((r) => r.result === 'unproven' && r.severity === 'high').map((r) => r.rule) ?? [],
      wantsReady: c.ready === true,
      rules: outcome.review?.rules.map((r) => r.rule) ?? null,
      error: outcome.error ?? null,
      ms: Math.round(performance.now() - started),
    };
    log(run);
    runs.push(run);
  }
  const rules = new Map();
  const row = (rule) => rules.get(rule) ?? rules.set(rule, { rule, tp: 0, fp: 0, misses: 0, clients: 0 }).get(rule);
  // Every rule of the review has a row, a rule no client breaks included (it shows 0 clients).
  for (const r of runs.find((x) => x.rules)?.rules ?? []) row(r);
  for (const r of runs) {
    for (const rule of r.expected) row(rule).clients += 1;
    for (const rule of r.flagged) r.expected.includes(rule) ? (row(rule).tp += 1) : (row(rule).fp += 1);
    for (const rule of r.misses) row(rule).misses += 1;
  }
  return { runs, rules: [...rules.values()].sort((a, b) => a.rule.localeCompare(b.rule)) };
}

/** The per-rule table, as Markdown. */
export function corpusMarkdown({ runs, rules }, { date, commit }) {
  const correct = runs.filter((r) => r.correct).length;
  const lines = [
    `Measured ${date} at commit \`${commit}\` with \`npm run review:corpus\`: ${runs.length} clients (${correct} correct, ${runs.length - correct} wrong).`,
    '',
    '| rule | wrong clients that break it | true positives | false positives | misses |',
    '|---|---|---|---|---|',
    ...rules.map((r) => `| \`${r.rule}\` | ${r.clients} | ${r.tp} | ${r.fp} | ${r.misses} |`),
  ];
  return `${lines.join('\n')}\n`;
}
