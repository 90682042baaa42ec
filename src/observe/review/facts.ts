export type { ReviewFact as Fact, ReviewFactPage as FactPage } from '../../store/state.js';

import type { ReviewFact as Fact, ReviewFactPage as FactPage } from '../../store/state.js';
import type { OperationName } from '../../vocab.js';

/** Facts kept per merchant: the newest; past it the oldest go (a finding whose evidence went goes with it). */
export const FACTS_PER_MERCHANT = 5_000;

/**
 * Facts per page. A page is one record of the state, so recording a fact is a push onto an array
 * (not a record added to, and one removed from, a collection of thousands), the file store writes
 * only the facts added to a page since it last wrote it, and the bound drops a page at a time.
 */
export const FACTS_PER_PAGE = 50;

/** The reads whose repeats, answered alike, are counted on one fact (FactPages.repeat). */
export const REPEATABLE: ReadonlySet<OperationName> = new Set(['getPayoutStatus', 'getBalance', 'getBeneficiary', 'getVerification', 'getCheckoutStatus']);

/** What the pages tell the state as they change (a page opened, dropped past the bound); a page grown is `add`'s answer. */
export interface PageSink {
  opened(page: FactPage): void;
  /** `merchantId`: whose it was (the store's index of owners is told with the removal). */
  dropped(id: string, merchantId: string | undefined): void;
}

/** A fact as versions before pages kept it: a record of its own. */
type LooseFact = Fact & { id: string; merchant_id: string };

interface Pages {
  /** Oldest first from `head` on: the ones before it are gone (cut away in one go once they are many). */
  pages: FactPage[];
  head: number;
  /** Facts in the pages from `head` on. */
  count: number;
  /** The newest page's latest fact of each key of a read (REPEATABLE: a repeat of it is counted on it). */
  latest: Map<string, Fact>;
}

/**
 * Each merchant's pages of facts in order, rebuilt from the state at open and after a restore,
 * and the bound kept as facts come: while the pages after the oldest hold the bound, the oldest goes.
 */
export class FactPages {
  private readonly byMerchant = new Map<string, Pages>();

  constructor(
    private readonly perMerchant = FACTS_PER_MERCHANT,
    private readonly perPage = FACTS_PER_PAGE,
  ) {}

  /**
   * The pages of `all` (the state's), in order; facts of older versions (one record each) are
   * made into pages through `sink`. Returns the highest seq found (0: none).
   */
  rebuild(all: Record<string, unknown>, sink: PageSink): number {
    this.byMerchant.clear();
    const pages: FactPage[] = [];
    const loose: LooseFact[] = [];
    for (const [id, r] of Object.entries(all)) {
      const facts = (r as Partial<FactPage>).facts;
      if (Array.isArray(facts) && facts.length > 0) pages.push(r as FactPage);
      else {
        if (!Array.isArray(facts)) loose.push(r as LooseFact);
        const owner = (r as { merchant_id?: unknown }).merchant_id;
        sink.dropped(id, typeof owner === 'string' ? owner : undefined);
      }
    }
    // A merchant with facts of both kinds (a file merged by hand): its pages are made again, all its facts in order.
    const mixed = new Set(loose.map((f) => f.merchant_id));
    for (const page of pages.filter((p) => mixed.has(p.merchant_id))) {
      for (const f of page.facts) loose.push({ ...f, id: page.id, merchant_id: page.merchant_id });
      sink.dropped(page.id, page.merchant_id);
    }
    pages.splice(0, pages.length, ...pages.filter((p) => !mixed.has(p.merchant_id)));
    let seq = this.place(pages);
    for (const { id: _id, merchant_id, ...fact } of loose.sort((a, b) => a.seq - b.seq)) {
      this.add(merchant_id, fact, sink);
      seq = Math.max(seq, fact.seq);
    }
    for (const list of this.byMerchant.values()) this.settle(list, sink);
    return seq;
  }

  /**
   * One merchant's pages again, from its records (the state's, of that merchant only), after they
   * were replaced (its reset, a restore): what it holds, not every merchant's pages. Null when a
   * record is a fact of an older version (one record each): only `rebuild` makes those into
   * pages, so the caller rebuilds everything then. Else the highest seq found (0: none).
   */
  rebuildMerchant(merchantId: string, records: Array<Partial<FactPage>>, sink: PageSink): number | null {
    if (records.some((r) => !Array.isArray(r.facts))) return null;
    const pages = records.filter((r): r is FactPage => (r.facts?.length ?? 0) > 0);
    for (const r of records) if (r.facts?.length === 0 && r.id !== undefined) sink.dropped(r.id, merchantId);
    this.byMerchant.delete(merchantId);
    const seq = this.place(pages);
    const list = this.byMerchant.get(merchantId);
    if (list) this.settle(list, sink);
    return seq;
  }

  /** Pages (none empty) onto their merchants' lists, oldest first; the highest seq among them (0: none). */
  private place(pages: FactPage[]): number {
    let seq = 0;
    for (const page of pages.sort((a, b) => (a.facts[0] as Fact).seq - (b.facts[0] as Fact).seq)) {
      const list = this.listOf(page.merchant_id);
      list.pages.push(page);
      list.count += page.facts.length;
      seq = Math.max(seq, (page.facts.at(-1) as Fact).seq);
    }
    return seq;
  }

  /** A list put together again: the bound kept, and its newest page's latest facts of each key found again. */
  private settle(list: Pages, sink: PageSink): void {
    this.trim(list, sink);
    list.latest.clear();
    for (const f of list.pages.at(-1)?.facts ?? []) if (f.key !== undefined && REPEATABLE.has(f.op)) list.latest.set(f.key, f);
  }

  /** Adds a fact to its merchant's newest page (a new one when that is full: told to `sink`), then keeps the bound; returns the page grown, or null when it opened one. */
  add(merchantId: string, fact: Fact, sink: PageSink): FactPage | null {
    const list = this.listOf(merchantId);
    const last = list.pages.length > list.head ? list.pages[list.pages.length - 1] : undefined;
    let grown: FactPage | null = null;
    if (last === undefined || last.facts.length >= this.perPage) {
      const page = { id: `${merchantId}/${fact.seq}`, merchant_id: merchantId, facts: [fact] };
      list.pages.push(page);
      sink.opened(page);
    } else {
      last.facts.push(fact);
      grown = last;
    }
    list.count += 1;
    if (grown === null) list.latest.clear();
    if (fact.key !== undefined && REPEATABLE.has(fact.op)) list.latest.set(fact.key, fact);
    this.trim(list, sink);
    return grown;
  }

  /**
   * A read answered 200 as the latest one of its key in the newest page was (same key, same
   * payout status, nothing else said: no rule, code or Retry-After): counted on that fact (repeats,
   * last_at, last_request_id) instead of recorded; returns its page, or null (not a repeat: record it).
   */
  repeat(merchantId: string, key: string, payoutStatus: string | undefined, at: number, requestId: string): FactPage | null {
    const list = this.byMerchant.get(merchantId);
    const f = list?.latest.get(key);
    if (f === undefined || f.status !== 200 || f.payout_status !== payoutStatus || f.code !== undefined || f.rule !== undefined) return null;
    f.repeats = (f.repeats ?? 0) + 1;
    f.last_at = at;
    f.last_request_id = requestId;
    return (list as Pages).pages[(list as Pages).pages.length - 1] as FactPage;
  }

  /** A merchant's facts, oldest first: the newest `perMerchant`. */
  of(merchantId: string): Fact[] {
    const list = this.byMerchant.get(merchantId);
    if (!list) return [];
    const out: Fact[] = [];
    for (let i = list.head; i < list.pages.length; i++) for (const f of (list.pages[i] as FactPage).facts) out.push(f);
    return out.length > this.perMerchant ? out.slice(out.length - this.perMerchant) : out;
  }

  merchants(): string[] {
    return [...this.byMerchant.keys()];
  }

  private listOf(merchantId: string): Pages {
    let list = this.byMerchant.get(merchantId);
    if (!list) this.byMerchant.set(merchantId, (list = { pages: [], head: 0, count: 0, latest: new Map() }));
    return list;
  }

  /** Drops the oldest pages while the others hold the bound: amortized constant time, not a shift of the whole list. */
  private trim(list: Pages, sink: PageSink): void {
    for (let oldest = list.pages[list.head]; oldest && list.count - oldest.facts.length >= this.perMerchant; oldest = list.pages[list.head]) {
      list.count -= oldest.facts.length;
      list.head += 1;
      sink.dropped(oldest.id, oldest.merchant_id);
    }
    if (list.head > 32 && list.head * 2 > list.pages.length) {
      list.pages = list.pages.slice(list.head);
      list.head = 0;
    }
  }
}
