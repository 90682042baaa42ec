import type { Paise } from '../money.js';
import { checkoutTimeline } from '../scenario/match.js';
import type { CheckoutStep } from '../scenario/scenario.js';
import type { CheckoutStatus, CheckoutTransaction, DueItem, Merchant } from '../store/state.js';
import type { DomainContext } from './context.js';
import { scheduleStep, stepOf } from './timeline.js';

/** Initialized may become anything else; Success, Failed and Dropped are final. */
export function checkoutTransitionRefusal(from: CheckoutStatus, to: CheckoutStatus): string | null {
  if (from !== 'Initialized') return `${from} is final`;
  if (to === 'Initialized') return 'Initialized → Initialized is no change';
  return null;
}

/** Moves a checkout transaction on; Success gets a 12-digit RRN. Returns the refusal, if any. */
export function transitionCheckout(ctx: DomainContext, t: CheckoutTransaction, status: CheckoutStatus): string | null {
  const refusal = checkoutTransitionRefusal(t.status, status);
  if (refusal) return refusal;
  ctx.repo.touch('checkout_transactions', t.payment_id);
  t.status = status;
  if (status === 'Success' && t.rrn === '') t.rrn = ctx.random.digits(12);
  ctx.scheduler.cancel(t.next_step);
  t.next_step = null;
  return null;
}

/** Schedules a new transaction's timeline: a matching checkout rule's, else the scenario's default. */
export function startCheckoutTimeline(ctx: DomainContext, t: CheckoutTransaction): string {
  const { rule, timeline } = checkoutTimeline(ctx.scenario(), { amount: t.order.gross_amount, payment_mode: t.payment_mode });
  scheduleCheckoutStep(ctx, t, t.created_at, timeline);
  return rule;
}

function scheduleCheckoutStep(ctx: DomainContext, t: CheckoutTransaction, from: number, steps: CheckoutStep[]): void {
  ctx.repo.touch('checkout_transactions', t.payment_id);
  t.next_step = scheduleStep(ctx.scheduler, 'checkout_step', { payment_id: t.payment_id }, t.merchant_id, from, steps);
}

/** The scheduler's handler for a checkout step. */
export function runCheckoutStep(ctx: DomainContext, item: DueItem): void {
  const id = String(item.payload.payment_id);
  const t = ctx.repo.anyCheckoutTransaction(id);
  if (!t || t.next_step !== item.id) return;
  t.next_step = null;
  ctx.repo.touch('checkout_transactions', t.payment_id);
  const { step, rest } = stepOf<CheckoutStep>(item);
  if (transitionCheckout(ctx, t, step.status) === null) scheduleCheckoutStep(ctx, t, item.due, rest);
}

/** What a new checkout transaction takes, in the domain's terms: the amount in paise. */
export interface CheckoutInput {
  amount: Paise;
  payment_mode?: string;
  order_id?: string;
  product_name?: string;
  customer?: { name?: string; email_id?: string; mobile_no?: string };
  custom_fields?: string[];
}

/** A new Initialized checkout transaction (control API), on its scenario timeline. */
export function createCheckoutTransaction(ctx: DomainContext, merchant: Merchant, body: CheckoutInput): { transaction: CheckoutTransaction; rule: string } {
  const { repo, random } = ctx;
  const paymentId = random.unique(
    () => `PAY${random.alphanumeric(14)}`,
    (id) => repo.anyCheckoutTransaction(id) !== undefined,
  );
  const custom = [...(body.custom_fields ?? [])];
  while (custom.length < 5) custom.push('');
  const empty = { address: null, city: null, state: null, country: null, pincode: null };
  const t: CheckoutTransaction = {
    payment_id: paymentId,
    merchant_id: merchant.merchant_id,
    status: 'Initialized',
    payment_mode: body.payment_mode ?? 'UPI',
    rrn: '',
    order: {
      order_id: body.order_id ?? `ORD${random.digits(10)}`,
      product_name: body.product_name ?? '',
      gross_amount: body.amount,
      gateway_fee: 0,
      currency: 'INR',
      tax: 0,
    },
    customer: { name: body.customer?.name ?? '', email_id: body.customer?.email_id ?? '', mobile_no: body.customer?.mobile_no ?? '' },
    shipping: { ...empty },
    billing: { ...empty },
    custom_fields: custom as CheckoutTransaction['custom_fields'],
    created_at: ctx.clocks.now(merchant.merchant_id),
    next_step: null,
  };
  repo.put('checkout_transactions', paymentId, t);
  const rule = startCheckoutTimeline(ctx, t);
  return { transaction: t, rule };
}
