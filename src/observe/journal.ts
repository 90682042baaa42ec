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

/**
 * What the journal keeps of an emulated-API exchange beyond its entry, for traces: the real time,
 * the query string, both sides' headers and bodies (each body cut to `BODY_LIMITS.perEntry`
 * bytes; every body of a merchant's older entries dropped past `BODY_LIMITS.perMerchant`). Kept
 * as they were sent: credentials are redacted when a trace is made (observe/trace.ts).
 */
export interface Exchange {
  /** Real time (ms since the epoch) the request ended. */
  real_at: number;
  /** The query string, without its `?`. */
  search: string;
  req_headers: Record<string, string | string[] | undefined>;
  req_body: string | null;
  /** The whole request body's size in bytes (more than `req_body` holds when it was cut). */
  req_body_size: number;
  res_headers: Record<string, string | string[] | number | undefined>;
  res_body: string | null;
  res_body_size: number;
  /** False once the merchant's byte bound dropped this entry's bodies. */
  bodies_kept: boolean;
}

/** As recorded on the request path: the time as a number, formatted only when read; `x`: the exchange (emulated API only). */
export type RecordedEntry = Omit<JournalEntry, 'at'> & { at: number; seq?: number; x?: Exchange };

/** How much of the bodies the journal keeps: bytes per body, and bytes of bodies per merchant (its newest entries'). */
export const BODY_LIMITS = { perEntry: 16 * 1024, perMerchant: 2 * 1024 * 1024 };

/** A manual clock moved on by an advance: the sandbox clock's (`merchant_id` null) or a merchant's own. */
export interface ClockMove {
  merchant_id: string | null;
  /** Sandbox times (ms) before and after. */
  from: number;
  to: number;
  /** Real time (ms since the epoch) of the advance. */
  real_at: number;
}

const view = ({ seq: _seq, x: _x, ...e }: RecordedEntry): JournalEntry => ({ ...e, at: toIso(e.at) });

/** A merchant's bodies held: their bytes, and its entries holding bodies, oldest first (from `head`). */
interface Held {
  bytes: number;
  entries: RecordedEntry[];
  head: number;
}

const bodyBytes = (x: Exchange) => (x.req_body === null ? 0 : x.req_body.length) + (x.res_body === null ? 0 : x.res_body.length);

export interface JournalQuery {
  limit: number;
  merchantId?: string;
  /** Only requests answered 400 and up (or not answered). */
  refused?: boolean;
  /** The control API's requests too. */
  control?: boolean;
}

/** One bounded list of entries, oldest first, by id; `onDrop` hears of each entry pushed out. */
class Ring {
  readonly entries = new Map<string, RecordedEntry>();
  constructor(
    private readonly capacity: number,
    private readonly onDrop: ((e: RecordedEntry) => void) | null = null,
  ) {}
  add(entry: RecordedEntry): void {
    this.entries.set(entry.request_id, entry);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      const dropped = this.entries.get(oldest) as RecordedEntry;
      this.entries.delete(oldest);
      this.onDrop?.(dropped);
    }
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
  /** Per merchant (`''`: requests no merchant was found for): the bodies held, for the byte bound. */
  private readonly held = new Map<string, Held>();
  /** Per merchant: how many of its entries the ring pushed out. */
  private readonly pushedOut = new Map<string, number>();
  /** The clocks' advances, oldest first (as many as entries). */
  private readonly moves: ClockMove[] = [];
  /** When each payout status change happened in real time, by `ref_id/status/sandbox time` (oldest first). */
  private readonly changes = new Map<string, number>();

  constructor(
    readonly capacity = 1000,
    readonly limits = BODY_LIMITS,
  ) {
    this.emulated = new Ring(capacity, (e) => this.pushOut(e));
    this.control = new Ring(capacity);
  }

  get enabled(): boolean {
    return this.capacity > 0;
  }

  add(entry: RecordedEntry): void {
    entry.seq = this.seq++;
    if (entry.x !== undefined) this.hold(entry, entry.x);
    (entry.api === 'control' ? this.control : this.emulated).add(entry);
  }

  /** Cuts the bodies to the per-entry bound and counts them against the merchant's; its oldest bodies go past it. */
  private hold(entry: RecordedEntry, x: Exchange): void {
    const cap = this.limits.perEntry;
    if (x.req_body !== null && x.req_body.length > cap) x.req_body = x.req_body.slice(0, cap);
    // A copy, so the whole answer is not kept alive by its first bytes.
    if (x.res_body !== null && x.res_body.length > cap) x.res_body = Buffer.from(x.res_body.slice(0, cap)).toString();
    const bytes = bodyBytes(x);
    if (bytes === 0) return;
    const key = entry.merchant_id ?? '';
    let h = this.held.get(key);
    if (!h) this.held.set(key, (h = { bytes: 0, entries: [], head: 0 }));
    h.entries.push(entry);
    h.bytes += bytes;
    while (h.bytes > this.limits.perMerchant && h.head < h.entries.length) this.release(h, h.entries[h.head++]);
    Journal.compact(h);
  }

  private release(h: Held, e: RecordedEntry): void {
    const x = e.x as Exchange;
    h.bytes -= bodyBytes(x);
    x.req_body = null;
    x.res_body = null;
    x.bodies_kept = false;
  }

  /** An entry the ring pushed out: counted for its merchant; its bodies (the oldest it holds) no longer count. */
  private pushOut(e: RecordedEntry): void {
    const key = e.merchant_id ?? '';
    this.pushedOut.set(key, (this.pushedOut.get(key) ?? 0) + 1);
    const h = this.held.get(key);
    if (h && h.head < h.entries.length && h.entries[h.head] === e) {
      h.head += 1;
      h.bytes -= bodyBytes(e.x as Exchange);
      Journal.compact(h);
    }
  }

  /**
   * Lets go of a merchant's entries the ring and the byte bound are done with: all of them at
   * once when none is left (a merchant gone quiet keeps nothing once its entries are pushed out),
   * else the dropped half when it is the larger. Without this a quiet merchant's list held its
   * pushed-out entries, bodies and all, until its own next request (measured by
   * bench/memory.js: 1.2 KB a request, beyond --journal-size).
   */
  private static compact(h: Held): void {
    if (h.head === h.entries.length) {
      h.entries = [];
      h.head = 0;
    } else if (h.head > 64 && h.head * 2 > h.entries.length) {
      h.entries.splice(0, h.head);
      h.head = 0;
    }
  }

  /** How many entries the journal holds for their bodies, over every merchant (for tests of its bounds). */
  heldEntries(): number {
    let n = 0;
    for (const h of this.held.values()) n += h.entries.length;
    return n;
  }

  /** A manual clock's advance (kept with the journal, as many as it keeps entries). */
  noteClockMove(move: ClockMove): void {
    if (!this.enabled) return;
    this.moves.push(move);
    if (this.moves.length > this.capacity) this.moves.shift();
  }

  /** A payout's status change, with the real time it happened (its sandbox time is in the payout's history). */
  noteStatusChange(refId: string, status: string, at: number): void {
    if (!this.enabled) return;
    this.changes.set(`${refId}/${status}/${at}`, Date.now());
    if (this.changes.size > this.capacity * 4) this.changes.delete(this.changes.keys().next().value as string);
  }

  /** The real time of a payout's status change, when the journal saw it. */
  changedAt(refId: string, status: string, at: number): number | undefined {
    return this.changes.get(`${refId}/${status}/${at}`);
  }

  /** The advances of the sandbox clock and of `merchantId`'s own, oldest first. */
  clockMoves(merchantId: string): ClockMove[] {
    return this.moves.filter((m) => m.merchant_id === null || m.merchant_id === merchantId);
  }

  /**
   * A merchant's entries of the emulated API with their exchanges, oldest first: its own, and those
   * no merchant was found for that named it (a 401 sent with its e-mail or merchant id).
   */
  exchangesOf(merchantId: string, email: string): RecordedEntry[] {
    const out: RecordedEntry[] = [];
    for (const e of this.emulated.entries.values()) {
      if (e.merchant_id === merchantId) out.push(e);
      else if (e.merchant_id === null && e.x) {
        const h = e.x.req_headers;
        if (h['x-merchant-email'] === email || h.merchantid === merchantId) out.push(e);
      }
    }
    return out;
  }

  /** Who made a request of the emulated API that is in the journal now: merchant ids, and the e-mails and merchant ids of requests no merchant was found for. */
  merchantsSeen(): Set<string> {
    const out = new Set<string>();
    for (const e of this.emulated.entries.values()) {
      if (e.merchant_id !== null) out.add(e.merchant_id);
      else if (e.x) for (const v of [e.x.req_headers['x-merchant-email'], e.x.req_headers.merchantid]) if (typeof v === 'string') out.add(v);
    }
    return out;
  }

  /** How many of a merchant's entries the journal's bound pushed out. */
  pushedOutOf(merchantId: string): number {
    return this.pushedOut.get(merchantId) ?? 0;
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
    this.held.clear();
    this.pushedOut.clear();
    this.moves.length = 0;
    this.changes.clear();
  }
}
