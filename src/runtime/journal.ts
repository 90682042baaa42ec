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
}

/** The request journal: the last `capacity` requests, by id and in order. */
export class Journal {
  private readonly entries = new Map<string, JournalEntry>();

  constructor(readonly capacity = 1000) {}

  add(entry: JournalEntry): void {
    this.entries.set(entry.request_id, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  get(id: string): JournalEntry | undefined {
    return this.entries.get(id);
  }

  /** Newest first. */
  list(limit = 100): JournalEntry[] {
    return [...this.entries.values()].reverse().slice(0, limit);
  }

  clear(): void {
    this.entries.clear();
  }
}
