import { BusinessError } from '../errors.js';
import type { OutageConfig, PayoutPlan } from '../scenario/scenario.js';
import type { PaymentMethod } from '../vocab.js';
import type { DomainContext } from './context.js';

/** Every outage window in force: the scenario's and those made through the control API. */
export function allOutages(ctx: DomainContext): OutageConfig[] {
  return [...ctx.scenario().outages, ...Object.values(ctx.repo.state.outages ?? {})];
}

/** The outage (first made wins) of the payee's bank (its IFSC's first four letters) and method at `now`, if any. */
export function outageFor(ctx: DomainContext, merchantId: string, ifsc: string, method: PaymentMethod, now: number): OutageConfig | null {
  const bank = ifsc.slice(0, 4).toUpperCase();
  return (
    allOutages(ctx).find(
      (o) =>
        o.bank === bank &&
        (o.payment_method === null || o.payment_method === method) &&
        (o.merchant_id === null || o.merchant_id === merchantId) &&
        (o.from === null || o.from <= now) &&
        (o.to === null || now < o.to),
    ) ?? null
  );
}

const METHOD_NAMES: Record<PaymentMethod, string> = { '1001': 'IMPS', '1002': 'NEFT', '1003': 'RTGS' };

/**
 * What an outage does to a payout about to be made at `now`: `reject` refuses it (envelope B
 * GENERIC_EXCEPTION, nothing debited); `hold` keeps it Pending until the window ends, then runs
 * its timeline from there; `unknown` sends it to Unknown at its creation instant (a step at 0: on a
 * manual clock, run by the next advance) and runs its timeline from the
 * window's end. The payout's rule becomes `outage:<id>`.
 */
export function planUnderOutage(outage: OutageConfig, plan: PayoutPlan, method: PaymentMethod, now: number): PayoutPlan {
  const rule = `outage:${outage.id}`;
  const what = `${outage.bank}${outage.payment_method ? ` ${METHOD_NAMES[method]}` : ''}`;
  if (outage.effect === 'reject') {
    throw new BusinessError('GENERIC_EXCEPTION', `The beneficiary bank (${what}) is unavailable at the moment. Please try again later.`, rule);
  }
  // A window that holds or sends payouts to Unknown always ends (checked when it is made).
  const wait = Math.max(0, (outage.to ?? now) - now);
  const [first, ...rest] = plan.steps;
  const resumed = first ? [{ ...first, afterMs: first.afterMs + wait }, ...rest] : [];
  if (outage.effect === 'hold') return { ...plan, rule, initialStatus: 'Pending', steps: resumed };
  const unknown = { afterMs: 0, status: 'Unknown' as const, bank_res_msg: `The beneficiary bank (${what}) is unavailable; awaiting confirmation` };
  return { ...plan, rule, initialStatus: 'Pending', steps: [unknown, ...resumed] };
}
