import { type FileHandle, open, readFile, writeFile } from 'node:fs/promises';
import type { HarEntry } from '../observe/har.js';

/**
 * The recorder's HAR 1.2 file (docs/fidelity.md): written as the session goes, valid HAR at every
 * moment between two writes, so a recorder that dies loses at most the exchange it was writing.
 *
 * The layout, which `readHarText` relies on to repair a file cut short:
 *   line 1      the head: `{"log":{…,"entries":[` (entries is the log's last member)
 *   line 2…     one entry a line (JSON.stringify never writes a raw newline), the second and
 *               later ones starting with `,`
 *   last line   `]}}`, then a newline
 * An append overwrites the closing line with the entry and a new closing line, in one positional
 * write: a crash tears at most that entry's line.
 */

export type { HarEntry };

/** What the recorder writes in `log._payout_sandbox`: where the calls went and what was scrubbed. */
export interface RecordingInfo {
  upstream: string;
  checkout_upstream: string;
  scrubbed: { headers: string[]; fields: string[]; aliases?: string[] };
  started_at: string;
}

export interface HarLog {
  version: '1.2';
  creator: { name: string; version: string };
  comment?: string;
  _payout_sandbox?: RecordingInfo;
  entries: HarEntry[];
}

export interface Har {
  log: HarLog;
}

export const RECORDER_NAME = 'payout-sandbox record';

const CLOSING = ']}}\n';

/** The head line for a log: its JSON with the empty entries list left open. */
function headLine(log: Omit<HarLog, 'entries'>): string {
  const whole = JSON.stringify({ log: { ...log, entries: [] } });
  return `${whole.slice(0, -']}}'.length)}\n`;
}

export interface AppenderOptions {
  /** Replace a file already there; without it an existing file is refused (EEXIST). */
  replace?: boolean;
  /**
   * For tests of a crash mid-write: the `entry`-th append (1-based) writes only the first half of
   * its line, then creates `marker` and never completes, so a test can kill the process at that
   * exact point rather than after a guessed delay.
   */
  tearAt?: { entry: number; marker: string };
}

/** Appends entries to a recorder HAR file, one positional write each, in the order they are given. */
export class HarAppender {
  private count = 0;
  /** Where the closing line starts: the next entry is written there. */
  private offset: number;
  /** Set after a failed write: the file may hold bytes past the closing line until it is cut back. */
  private damaged = false;
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: FileHandle,
    headBytes: number,
    private readonly tearAt: AppenderOptions['tearAt'],
  ) {
    this.offset = headBytes;
  }

  /** Creates the file with its head and no entries (an fs error, EEXIST included, rejects). */
  static async create(path: string, log: Omit<HarLog, 'entries'>, options: AppenderOptions = {}): Promise<HarAppender> {
    const file = await open(path, options.replace ? 'w' : 'wx');
    try {
      const head = Buffer.from(headLine(log));
      await file.write(Buffer.concat([head, Buffer.from(CLOSING)]), 0, undefined, 0);
      return new HarAppender(file, head.length, options.tearAt);
    } catch (err) {
      await file.close();
      throw err;
    }
  }

  /** Entries written so far. */
  get entries(): number {
    return this.count;
  }

  /**
   * Writes one entry after the others and answers its number (1 for the first). Rejects when the
   * write fails; the next append first cuts back what a failed one may have left.
   */
  append(entry: HarEntry): Promise<number> {
    const run = this.queue.then(() => this.write(entry));
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async write(entry: HarEntry): Promise<number> {
    const line = `${this.count > 0 ? ',' : ''}${JSON.stringify(entry)}\n`;
    const bytes = Buffer.from(line + CLOSING);
    if (this.damaged) {
      await this.file.truncate(this.offset);
      this.damaged = false;
    }
    if (this.tearAt?.entry === this.count + 1) await this.tear(bytes);
    try {
      const { bytesWritten } = await this.file.write(bytes, 0, bytes.length, this.offset);
      if (bytesWritten !== bytes.length) throw new Error(`short write (${bytesWritten} of ${bytes.length} bytes)`);
    } catch (err) {
      this.damaged = true;
      throw err;
    }
    this.offset += Buffer.byteLength(line);
    return ++this.count;
  }

  private async tear(bytes: Buffer): Promise<never> {
    await this.file.write(bytes, 0, Math.floor(bytes.length / 2), this.offset);
    await writeFile((this.tearAt as { marker: string }).marker, `${process.pid}\n`);
    // A pending promise alone would let the process exit: the timer keeps it waiting for the kill.
    setInterval(() => undefined, 60_000);
    return new Promise<never>(() => undefined);
  }

  /** Waits for the writes queued, then closes the file (it is complete as it stands). */
  async close(): Promise<void> {
    await this.queue;
    await this.file.close();
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What is wrong with an entry, or null: the fields a reader of a recording relies on. */
function entryProblem(e: unknown): string | null {
  if (!isObject(e)) return 'is not an object';
  const req = e.request;
  if (!isObject(req)) return 'has no request';
  if (typeof req.method !== 'string' || typeof req.url !== 'string') return 'has a request without a method and a URL';
  if (!isObject(e.response)) return 'has no response';
  if (typeof e.response.status !== 'number') return 'has a response without a status';
  if (typeof e.startedDateTime !== 'string') return 'has no startedDateTime';
  return null;
}

/** What is wrong with a parsed document as HAR 1.2, or null. */
function harProblem(doc: unknown): string | null {
  if (!isObject(doc) || !isObject(doc.log)) return 'not a HAR: no "log" object';
  const { log } = doc;
  if (log.version !== '1.2') return `a HAR of version ${JSON.stringify(log.version ?? null)}: only HAR 1.2 is read`;
  if (!Array.isArray(log.entries)) return 'not a HAR: "log.entries" is not a list';
  for (const [i, e] of log.entries.entries()) {
    const problem = entryProblem(e);
    if (problem) return `entry ${i + 1} ${problem}`;
  }
  return null;
}

/** The head of a recorder's file, when `line` is one: the log without its entries. */
function recorderHead(line: string): Omit<HarLog, 'entries'> | null {
  if (!line.endsWith('"entries":[')) return null;
  try {
    const doc = JSON.parse(`${line}]}}`) as { log?: HarLog };
    return doc.log?.creator?.name === RECORDER_NAME ? doc.log : null;
  } catch {
    return null;
  }
}

/**
 * A recorder's file whose JSON does not parse: the head and every whole entry line. Only the last
 * line may be torn (the recorder writes nowhere else); anything else wrong is damage it names.
 */
function repair(lines: string[], head: Omit<HarLog, 'entries'>): Har | { problem: string } {
  const entries: HarEntry[] = [];
  const body = lines.slice(1);
  while (body.length > 0 && body[body.length - 1].trim() === '') body.pop();
  for (const [i, raw] of body.entries()) {
    const last = i === body.length - 1;
    if (raw === ']}}') {
      if (last) break;
      return { problem: `line ${i + 2}: the closing "]}}" comes before the end of the file (damaged, not cut short)` };
    }
    let entry: unknown;
    try {
      entry = JSON.parse(raw.startsWith(',') ? raw.slice(1) : raw);
    } catch {
      entry = undefined;
    }
    const problem = entry === undefined ? 'is not JSON' : entryProblem(entry);
    if (problem === null) entries.push(entry as HarEntry);
    else if (!last) return { problem: `line ${i + 2}: entry ${entries.length + 1} ${problem} (damaged in the middle, not cut short)` };
  }
  return { log: { ...head, entries } };
}

/**
 * Reads a HAR 1.2 document: parsed as it is, or, for a recorder's file cut short (a crash while it
 * wrote), rebuilt from its head and its whole entries (`repaired: true`). Anything else answers the
 * problem in words: not JSON, not a HAR, another version, an entry without a request, …
 */
export function readHarText(text: string): { har: Har; repaired: boolean } | { problem: string } {
  if (text.trim() === '') return { problem: 'empty: no HAR in it' };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    const lines = text.split('\n');
    const head = recorderHead(lines[0]);
    if (head === null) return { problem: `not JSON (${(err as Error).message}), and not a file cut short by payout-sandbox record` };
    const rebuilt = repair(lines, head);
    if ('problem' in rebuilt) return rebuilt;
    const problem = harProblem(rebuilt);
    return problem ? { problem } : { har: rebuilt, repaired: true };
  }
  const problem = harProblem(doc);
  return problem ? { problem } : { har: doc as Har, repaired: false };
}

/** `readHarText` of a file; a file that cannot be read is a problem too. */
export async function readHarFile(path: string): Promise<{ har: Har; repaired: boolean } | { problem: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { problem: `cannot read ${path} (${e.code === 'ENOENT' ? 'no such file' : e.message})` };
  }
  return readHarText(text);
}
