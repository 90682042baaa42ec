import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../contract/kit.js';
import { inputParser } from '../contract/parse.js';
import { DURATION_FORMS, DURATION_PATTERN } from '../duration.js';
import { RequestError } from '../errors.js';
import type { SandboxCore } from '../sandbox/core.js';
import { chaosConfig, outageConfig } from '../scenario/operation-faults.js';
import { CHAOS_MODES } from '../scenario/schema.js';
import type { OutageRecord } from '../store/state.js';
import { toIso } from '../time.js';
import { OPERATION_NAMES, OUTAGE_EFFECTS, PAYMENT_METHODS } from '../vocab.js';
import { requireMerchant } from './refusals.js';

/** `PUT /__sandbox/merchants/{id}/chaos`: seeded chaos for one merchant. */
export const ChaosBody = Type.Object(
  {
    percent: Type.Number({ minimum: 0, maximum: 100 }),
    modes: Type.Optional(Type.Array(StringEnum(CHAOS_MODES), { minItems: 1 })),
    operations: Type.Optional(Type.Array(StringEnum(OPERATION_NAMES), { minItems: 1 })),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 32 - 1 })),
  },
  { additionalProperties: false, description: 'Chaos for this merchant: `percent` of the calls of `operations` fail with one of `modes`, drawn from `seed`.' },
);
export type ChaosInput = Static<typeof ChaosBody>;

/** `POST /__sandbox/outages`: a bank outage window. */
export const OutageBody = Type.Object(
  {
    bank: Type.String({ pattern: '^[A-Z]{4}$', 'x-message': "must be an IFSC's first four letters, e.g. HDFC." }),
    payment_method: Type.Optional(StringEnum(PAYMENT_METHODS)),
    from: Type.Optional(Type.String({ format: 'date-time', 'x-message': 'must be an ISO date and time with its offset, e.g. 2026-01-01T09:00:00+05:30.' })),
    to: Type.Optional(Type.String({ format: 'date-time', 'x-message': 'must be an ISO date and time with its offset, e.g. 2026-01-01T11:00:00+05:30.' })),
    for: Type.Optional(Type.String({ pattern: DURATION_PATTERN, 'x-message': `must be ${DURATION_FORMS}.` })),
    effect: StringEnum(OUTAGE_EFFECTS),
    merchant_id: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false, description: 'Payouts to a bank (and method) refused, held Pending or Unknown while the window lasts.' },
);
export type OutageInput = Static<typeof OutageBody>;

const parse = { chaos: inputParser(ChaosBody, { strict: true }), outage: inputParser(OutageBody, { strict: true }) };

const orNull = (t: number | null) => (t === null ? null : toIso(t));

/**
 * Failure on purpose beyond the scenario: a merchant's seeded chaos and bank outage windows,
 * kept in the state (a restart keeps them; a merchant's snapshot carries its chaos).
 */
export class FailureAdmin {
  constructor(private readonly sb: SandboxCore) {}

  /** A merchant's chaos: its own, the scenario's it falls back on, or none. */
  chaos(merchantId: string) {
    requireMerchant(this.sb.repo, merchantId);
    const own = this.sb.repo.state.chaos?.[merchantId];
    if (own) return { merchant_id: merchantId, source: 'merchant', ...own };
    const s = this.sb.scenario().chaos;
    return s ? { merchant_id: merchantId, source: 'scenario', ...s } : { merchant_id: merchantId, source: 'none', percent: 0 };
  }

  /** Turns a merchant's chaos on (or changes it): its draws start again from the seed's first. */
  async setChaos(merchantId: string, body: unknown) {
    const input = parse.chaos(body);
    requireMerchant(this.sb.repo, merchantId);
    this.sb.repo.put('chaos', merchantId, { ...chaosConfig(input), draws: 0 });
    await this.sb.repo.persist();
    return this.chaos(merchantId);
  }

  async clearChaos(merchantId: string) {
    requireMerchant(this.sb.repo, merchantId);
    this.sb.repo.remove('chaos', merchantId);
    await this.sb.repo.persist();
    return this.chaos(merchantId);
  }

  private view(o: OutageRecord | ReturnType<SandboxCore['scenario']>['outages'][number], source: 'control' | 'scenario') {
    const now = o.merchant_id ? this.sb.clocks.now(o.merchant_id) : this.sb.clock.now();
    const active = (o.from === null || o.from <= now) && (o.to === null || now < o.to);
    return {
      id: o.id,
      bank: o.bank,
      payment_method: o.payment_method,
      from: orNull(o.from),
      to: orNull(o.to),
      effect: o.effect,
      merchant_id: o.merchant_id,
      active,
      source,
    };
  }

  outages() {
    const made = Object.values(this.sb.repo.state.outages ?? {}).map((o) => this.view(o, 'control'));
    return { outages: [...this.sb.scenario().outages.map((o) => this.view(o, 'scenario')), ...made] };
  }

  /** A new outage window: from now (its merchant's clock, else the sandbox's) unless `from` says; `to` or `for`. */
  async createOutage(body: unknown) {
    const input = parse.outage(body);
    if (input.merchant_id !== undefined) requireMerchant(this.sb.repo, input.merchant_id);
    const merchantId = input.merchant_id ?? null;
    const now = merchantId ? this.sb.clocks.now(merchantId) : this.sb.clock.now();
    const id = this.sb.random.unique(
      () => `out_${this.sb.random.alphanumeric(8).toLowerCase()}`,
      (candidate) => Object.hasOwn(this.sb.repo.state.outages ?? {}, candidate),
    );
    const made = outageConfig(input, id, now, merchantId);
    if (typeof made === 'string') throw new RequestError(400, `The outage ${made}.`);
    if (made.from === null) made.from = now;
    if (made.effect !== 'reject' && made.to === null) throw new RequestError(400, `A ${made.effect} outage needs an end: give to or for.`);
    const record: OutageRecord = { ...made, created_at: now };
    this.sb.repo.put('outages', id, record);
    await this.sb.repo.persist();
    return this.view(record, 'control');
  }

  async deleteOutage(id: string) {
    if (!Object.hasOwn(this.sb.repo.state.outages ?? {}, id))
      throw new RequestError(404, `No outage ${id} (the scenario's own cannot be deleted: change the scenario).`);
    this.sb.repo.remove('outages', id);
    await this.sb.repo.persist();
    return { deleted: id };
  }
}
