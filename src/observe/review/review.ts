import type { Payout, State, WebhookDelivery } from '../../store/state.js';
import type { Store } from '../../store/store.js';
import { FACTS_PER_MERCHANT, FACTS_PER_PAGE, type Fact, type FactPage, FactPages, type PageSink } from './facts.js';
import { type Judgement, judge, type Page, type ReviewReport, reviewReport } from './report.js';
import type { ProbeRun } from './rules.js';

/** What the review needs of the sandbox beside its facts, per merchant. */
export interface ReviewSources {
  /** The merchant's receiver probe runs (newest last). */
  probes(merchantId: string): ProbeRun[];
  webhookTimeoutMs(): number;
  /** The scenario's repeat window (double-payout-after-success). */
  repeatWindowMs(): number;
  /** The merchant's clock now. */
  now(merchantId: string): number;
  /** Finished webhook deliveries kept per merchant (the outbox's retention). */
  retention(): number;
}

interface Grouped {
  payouts: Map<string, Payout[]>;
  deliveries: Map<string, WebhookDelivery[]>;
}

/** Payouts and deliveries by merchant, in one pass (of one merchant's only, when given). */
function grouped(state: State, only: string | null): Grouped {
  const by = <T extends { merchant_id: string }>(all: Record<string, T>) => {
    const out = new Map<string, T[]>();
    for (const r of Object.values(all)) {
      if (only !== null && r.merchant_id !== only) continue;
      const list = out.get(r.merchant_id) ?? [];
      list.push(r);
      out.set(r.merchant_id, list);
    }
    return out;
  };
  return { payouts: by(state.payouts), deliveries: by(state.webhook_deliveries) };
}

/**
 * The integration review: facts recorded per merchant as requests end, kept in the state in pages
 * (the file store writes the facts added with the next write, so a restart keeps them; a crash
 * may lose the last few, which no answer waited for), bounded per merchant (the oldest go), carried
 * by a merchant's snapshot; and the rules run over them, with the merchant's payouts and
 * deliveries, when a report is asked for.
 */
export class Review {
  private readonly pages: FactPages;
  private seq = 0;
  /** Whether a page grown is told to the store: a file store writes what was added; memory has nothing to write. */
  private readonly tellGrowth: boolean;
  /** The pages' changes, told to the state and the store (one object: recording allocates no closure). */
  private readonly sink: PageSink = {
    opened: (page) => {
      this.stored[page.id] = page;
      this.store.changedQuietly('review_facts', page.id);
    },
    dropped: (id, merchantId) => {
      delete this.stored[id];
      this.store.changedQuietly('review_facts', id, false, merchantId);
    },
  };

  constructor(
    private readonly store: Store,
    private readonly sources: ReviewSources,
    readonly enabled: boolean,
    private readonly perMerchant = FACTS_PER_MERCHANT,
  ) {
    this.pages = new FactPages(perMerchant);
    this.tellGrowth = store.kind === 'file';
    this.reindex();
  }

  private get stored(): Record<string, FactPage> {
    return (this.store.state.review_facts ??= {});
  }

  /** After records were replaced (a restore, a reset): the pages found again in the state. */
  reindex(): void {
    this.seq = Math.max(this.seq, this.pages.rebuild(this.stored, this.sink));
  }

  /** After one merchant's records were replaced (its reset, a restore): its pages only (see FactPages.rebuildMerchant). */
  reindexMerchant(merchantId: string): void {
    const seq = this.pages.rebuildMerchant(merchantId, this.store.owners.recordsOf<FactPage>(this.store.state, merchantId, 'review_facts'), this.sink);
    if (seq === null) this.reindex();
    else this.seq = Math.max(this.seq, seq);
  }

  /**
   * A read answered 200 as the latest of its key was: counted on that fact (see FactPages.repeat);
   * false when it is not a repeat, and the caller records it.
   */
  repeat(merchantId: string, key: string, payoutStatus: string | undefined, at: number, requestId: string): boolean {
    if (!this.enabled) return false;
    const page = this.pages.repeat(merchantId, key, payoutStatus, at, requestId);
    if (page === null) return false;
    // A fact the file store may have written changed: the page is written whole next time.
    if (this.tellGrowth) this.store.changedQuietly('review_facts', page.id, true);
    return true;
  }

  /** Records a fact of a merchant (no answer waits for it to be written), its `seq` given here. */
  record(merchantId: string, fact: Fact): void {
    if (!this.enabled) return;
    this.seq += 1;
    fact.seq = this.seq;
    const grown = this.pages.add(merchantId, fact, this.sink);
    if (grown !== null && this.tellGrowth) this.store.changedQuietly('review_facts', grown.id);
  }

  private judgement(merchantId: string, records: Grouped, withMerchant: boolean): Judgement {
    const payouts = (records.payouts.get(merchantId) ?? []).sort((a, b) => a.created_at - b.created_at);
    const facts = this.pages.of(merchantId);
    const deliveries = records.deliveries.get(merchantId) ?? [];
    // Past a bound, what was learnt before the oldest fact or delivery kept is gone: not judged.
    const factsCut = facts.length >= this.perMerchant - FACTS_PER_PAGE ? (facts[0]?.at ?? -Infinity) : -Infinity;
    const deliveriesCut = deliveries.length >= this.sources.retention() ? Math.min(...deliveries.map((d) => d.created_at)) : -Infinity;
    const input = {
      merchantId,
      facts,
      payouts,
      deliveries,
      horizon: Math.max(factsCut, deliveriesCut),
      probes: this.sources.probes(merchantId),
      webhookTimeoutMs: this.sources.webhookTimeoutMs(),
      repeatWindowMs: this.sources.repeatWindowMs(),
      now: this.sources.now(merchantId),
    };
    return judge(input, withMerchant ? merchantId : undefined);
  }

  /**
   * One merchant's review, or (null) every merchant's that made a request (or has payouts,
   * deliveries or probe runs) together, each finding naming its merchant. `page` cuts the findings
   * listed (default: all).
   */
  report(merchantId: string | null, page: Page = { limit: Number.POSITIVE_INFINITY }): ReviewReport {
    const records = grouped(this.store.state, merchantId);
    if (merchantId !== null) return reviewReport(merchantId, new Map([[merchantId, this.judgement(merchantId, records, false)]]), page);
    const active = Object.keys(this.store.state.merchants).filter(
      (m) => this.pages.of(m).length > 0 || records.payouts.has(m) || records.deliveries.has(m) || this.sources.probes(m).length > 0,
    );
    return reviewReport(null, new Map(active.map((m) => [m, this.judgement(m, records, true)])), page);
  }
}
