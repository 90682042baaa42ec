import { InvalidArgumentError, Option } from 'commander';
import type { JournalEntry } from '../observe/journal.js';
import { clientOf, exit, runVerb, verbCommand } from './http.js';

/**
 * `payout-sandbox tail [--merchant ID] [--status 4xx] [--path …] [--format text|json]`: follows
 * the request journal of a running sandbox (the emulated API's requests) as it grows, one line a
 * request: method, path, status, rule, latency, ref_id (and a refusal's code). It polls
 * `GET /__sandbox/requests` every 250 ms and prints what it has not printed yet (by request_id),
 * oldest first: the requests made after it started (`--last N` first prints the N newest already
 * there).
 */

const POLL_MS = 250;
/** How many of the newest entries each look reads. */
const PAGE = 200;

/** What the tail reads of a journal entry (as `GET /__sandbox/requests` lists it). */
type Entry = Pick<JournalEntry, 'request_id' | 'method' | 'path' | 'merchant_id' | 'status' | 'at' | 'latency_ms' | 'rule' | 'ref_id' | 'error'>;

/** `4xx`, `404`, `2xx,5xx`: a test of a status. */
function statusFilter(value: string): (status: number | null) => boolean {
  const parts = value.split(',').map((p) => p.trim().toLowerCase());
  if (parts.some((p) => !/^[1-5](xx|\d\d)$/.test(p))) throw new InvalidArgumentError('must be statuses or classes, comma-separated: 404, 4xx, 2xx,5xx.');
  return (status) => status !== null && parts.some((p) => (p.endsWith('xx') ? Math.floor(status / 100) === Number(p[0]) : status === Number(p)));
}

/** A path's test: with `*` a pattern over the whole path (`*` any run of characters), else a prefix. */
function pathFilter(value: string): (path: string) => boolean {
  if (!value.includes('*')) return (path) => path.startsWith(value);
  const re = new RegExp(
    `^${value
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (path) => re.test(path);
}

function count(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number.');
  return Number(value);
}

/** One entry as a line: time, method, path, status, rule, latency, ref_id, a refusal's code. */
export function entryLine(e: Entry): string {
  const time = e.at.slice(11, 23);
  const parts = [time, e.method.padEnd(5), e.path, String(e.status ?? '-'), `rule=${e.rule ?? '-'}`, `${e.latency_ms} ms`, `ref_id=${e.ref_id ?? '-'}`];
  if (e.merchant_id) parts.push(`merchant=${e.merchant_id}`);
  if (e.error) parts.push(`error=${e.error.code ?? e.error.message}`);
  return parts.join('  ');
}

export function main(argv: string[]): Promise<never> {
  const program = verbCommand('tail', "Follows a running sandbox's request journal: method, path, status, rule, latency, ref_id.")
    .option('--merchant <id>', "only this merchant's requests")
    .addOption(new Option('--status <statuses>', 'only these statuses: 404, 4xx, 2xx,5xx').argParser(statusFilter))
    .option('--path <path>', 'only paths starting with it (or matching it, with * as a wildcard)')
    .addOption(new Option('--format <format>', 'text lines, or one JSON journal entry a line').choices(['text', 'json']).default('text'))
    .addOption(new Option('--last <n>', 'first print the last n requests already in the journal').argParser(count).default(0));
  return runVerb(argv, 1, program, async (o) => {
    const client = clientOf(o as { url: string; adminToken?: string });
    const status = o.status as ((s: number | null) => boolean) | undefined;
    const path = o.path === undefined ? undefined : pathFilter(String(o.path));
    const query = `?limit=${PAGE}${o.merchant ? `&merchant_id=${encodeURIComponent(String(o.merchant))}` : ''}`;
    const seen = new Set<string>();
    const look = async () => (await client.control<{ requests: Entry[] }>('GET', `/requests${query}`)).requests;
    const show = (entries: Entry[]) => {
      for (const e of entries) {
        if ((status && !status(e.status)) || (path && !path(e.path))) continue;
        process.stdout.write(o.format === 'json' ? `${JSON.stringify(e)}\n` : `${entryLine(e)}\n`);
      }
    };
    // What is there now: seen (the last --last of it printed).
    const first = await look();
    for (const e of first) seen.add(e.request_id);
    show(first.slice(0, o.last as number).reverse());
    process.stderr.write(`tailing the request journal of ${client.url}${o.merchant ? ` (merchant ${o.merchant})` : ''}; Ctrl-C to stop\n`);
    process.once('SIGINT', () => void exit(0));
    process.once('SIGTERM', () => void exit(0));
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const entries = await look();
      const fresh = entries.filter((e) => !seen.has(e.request_id));
      for (const e of fresh) seen.add(e.request_id);
      // Forget what fell out of the page: the set stays as large as one page.
      if (seen.size > PAGE * 4) {
        const keep = new Set(entries.map((e) => e.request_id));
        for (const id of seen) if (!keep.has(id)) seen.delete(id);
      }
      show(fresh.reverse());
    }
  });
}
