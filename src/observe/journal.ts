import { toIso } from '../time.js';

/** A transition a request asked for and the domain refused (shown in the request's explain). */
export interface RefusedTransition {
  id: string;
  from: string;
  to: string;
  reason: string;
}

/** Why a request was refused: the envelope-B code (null for an envelope-A error) and the message answered. */
export interface RefusalError {
  code: string | null;
  message: string;
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
  /** A refused request's error, as answered. */
  error: RefusalError | null;
  /** Why a 401 was answered (missing header, unknown e-mail, …): sandbox-only, also in X-Sandbox-Auth-Reason. */
  auth_reason: string | null;
  /** `emulated`: the reference's API; `control`: the control API and the dashboard. */
  api: 'emulated' | 'control';
}

/** As recorded on the request path: the time as a number, formatted only when read. */
export type RecordedEntry = Omit<JournalEntry, 'at'> & { at: number; seq?: number };

const view = ({ seq: _seq, ...e }: RecordedEntry): JournalEntry => ({ ...e, at: toIso(e.at) });

export interface JournalQuery {
  limit: number;
  merchantId?: string;
  /** Only requests answered 400 and up (or not answered). */
  refused?: boolean;
  /** The control API's requests too. */
  control?: boolean;
}

/** One bounded list of entries, oldest first, by id. */
class Ring {
  readonly entries = new Map<string, RecordedEntry>();
  constructor(private readonly capacity: number) {}
  add(entry: RecordedEntry): void {
    this.entries.set(entry.request_id, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/**
 * The request journal: the last `capacity` requests of the emulated API, by id and in order
 * (capacity 0: off); beside it, as many of the control API's (the dashboard's own refreshes),
 * kept apart so that they never push the merchant's traffic out and listed only when asked for.
 */
export class Journal {
  private readonly emulated: Ring;
  private readonly control: Ring;
  private seq = 0;

  constructor(readonly capacity = 1000) {
    this.emulated = new Ring(capacity);
    this.control = new Ring(capacity);
  }

  get enabled(): boolean {
    return this.capacity > 0;
  }

  add(entry: RecordedEntry): void {
    entry.seq = this.seq++;
    (entry.api === 'control' ? this.control : this.emulated).add(entry);
  }

  get(id: string): JournalEntry | undefined {
    const e = this.emulated.entries.get(id) ?? this.control.entries.get(id);
    return e && view(e);
  }

  /** Newest first. */
  list(query: JournalQuery): JournalEntry[] {
    const keep = (e: RecordedEntry) =>
      (query.merchantId === undefined || e.merchant_id === query.merchantId) && (!query.refused || e.status === null || e.status >= 400);
    const out: JournalEntry[] = [];
    const a = [...this.emulated.entries.values()];
    const b = query.control ? [...this.control.entries.values()] : [];
    let i = a.length - 1;
    let j = b.length - 1;
    while (out.length < query.limit && (i >= 0 || j >= 0)) {
      const e = j < 0 || (i >= 0 && (a[i].seq ?? 0) > (b[j].seq ?? 0)) ? a[i--] : b[j--];
      if (keep(e)) out.push(view(e));
    }
    return out;
  }

  clear(): void {
    this.emulated.entries.clear();
    this.control.entries.clear();
  }
}
