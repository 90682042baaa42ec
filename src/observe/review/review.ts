import type { Payout, State, WebhookDelivery } from '../../store/state.js';
import type { Store } from '../../store/store.js';
import { FACTS_PER_MERCHANT, type Fact, FactIndex } from './facts.js';
import { type Finding, findingsOf, type ReviewReport, reviewReport } from './report.js';
import type { ProbeRun } from './rules.js';

/** What the review needs of the sandbox beside its facts, per merchant. */
export interface ReviewSources {
  /** The merchant's receiver probe runs (newest last). */
  probes(merchantId: string): ProbeRun[];
  webhookTimeoutMs(): number;
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
 * The integration review: facts recorded per merchant as requests end, kept in the state (the
 * file store writes them with the next write, so a restart keeps them; a crash may lose the last
 * few, which no answer waited for), bounded per merchant (the oldest go), carried by a
 * merchant's snapshot; and the rules run over them, with the merchant's payouts and deliveries,
 * when a report is asked for.
 */
export class Review {
  private readonly index = new FactIndex();
  private seq = 0;

  constructor(
    private readonly store: Store,
    private readonly sources: ReviewSources,
    readonly enabled: boolean,
    private readonly perMerchant = FACTS_PER_MERCHANT,
  ) {
    this.reindex();
  }

  private get facts(): Record<string, Fact> {
    return (this.store.state.review_facts ??= {});
  }

  /** After records were replaced (a restore, a reset): the index built again from the state. */
  reindex(): void {
    this.index.rebuild(this.facts);
    for (const f of Object.values(this.facts)) this.seq = Math.max(this.seq, f.seq);
  }

  /** Records a fact (no answer waits for it to be written); the merchant's oldest past the bound go. */
  record(fact: Omit<Fact, 'id' | 'seq'>): void {
    if (!this.enabled) return;
    this.seq += 1;
    const f: Fact = { ...fact, id: `${fact.merchant_id}/${this.seq}`, seq: this.seq };
    this.facts[f.id] = f;
    this.store.changedQuietly('review_facts', f.id);
    this.index.add(f);
    for (const old of this.index.overflow(f.merchant_id, this.perMerchant)) {
      delete this.facts[old];
      this.store.changedQuietly('review_facts', old);
    }
  }

  private findings(merchantId: string, records: Grouped, withMerchant: boolean): Finding[] {
    const payouts = (records.payouts.get(merchantId) ?? []).sort((a, b) => a.created_at - b.created_at);
    const input = {
      facts: this.index.of(merchantId, this.facts),
      payouts,
      deliveries: records.deliveries.get(merchantId) ?? [],
      probes: this.sources.probes(merchantId),
      webhookTimeoutMs: this.sources.webhookTimeoutMs(),
    };
    return findingsOf(input, withMerchant ? merchantId : undefined);
  }

  /** One merchant's review, or (null) every merchant's findings together, each naming its merchant. */
  report(merchantId: string | null): ReviewReport {
    const records = grouped(this.store.state, merchantId);
    if (merchantId !== null) return reviewReport(merchantId, this.findings(merchantId, records, false));
    return reviewReport(
      null,
      Object.keys(this.store.state.merchants).flatMap((m) => this.findings(m, records, true)),
    );
  }
}
