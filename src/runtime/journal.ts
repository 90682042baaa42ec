import { toIso } from '../time.js';

/** A transition a request asked for and the domain refused (shown in the request's explain). */
export interface RefusedTransition {
  id: string;
  from: string;
  to: string;
  reason: string;
}

export interface JournalEntry {
  request_id: string;
  method: string;
  path: string;
  merchant_id: string | null;
  /** Null when the connection was closed with no answer. */
  status: number | null;
  at: string;
  latency_ms: number;
  /** The scenario rule that decided the request (`X-Sandbox-Rule`), if any. */
  rule: string | null;
  refused_transitions: RefusedTransition[];
  /** The payout the request made (initialize) or found (status check), when there is one. */
  ref_id: string | null;
}

/** As recorded on the request path: the time as a number, formatted only when read. */
export type RecordedEntry = Omit<JournalEntry, 'at'> & { at: number };

const view = (e: RecordedEntry): JournalEntry => ({ ...e, at: toIso(e.at) });

/** The request journal: the last `capacity` requests, by id and in order (capacity 0: off). */
export class Journal {
  private readonly entries = new Map<string, RecordedEntry>();

  constructor(readonly capacity = 1000) {}

  get enabled(): boolean {
    return this.capacity > 0;
  }

  add(entry: RecordedEntry): void {
    this.entries.set(entry.request_id, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  get(id: string): JournalEntry | undefined {
    const e = this.entries.get(id);
    return e && view(e);
  }

  /** Newest first. */
  list(limit = 100): JournalEntry[] {
    const out: JournalEntry[] = [];
    const all = [...this.entries.values()];
    for (let i = all.length - 1; i >= 0 && out.length < limit; i--) out.push(view(all[i]));
    return out;
  }

  clear(): void {
    this.entries.clear();
  }
}
