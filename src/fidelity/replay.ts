import { createApp } from '../app.js';
import { serve } from '../listen.js';
import type { SandboxOptions } from '../sandbox/config.js';
import type { Call, Skipped } from './calls.js';
import { type Answer, compareAnswers, type Difference, type Observation, sequenceDifferences } from './compare.js';

/**
 * A recorded session replayed against the sandbox, as the recorded merchant would have made it:
 * a fresh merchant on a manual clock of its own stands in for the recorded one, its VANs for the
 * recorded VANs (in order of first use, funded, inactive where the real service said so), the
 * ids the sandbox answers (ref_ids, beneficiary and verification ids) for the ones the real service
 * answered, in every later request; before each request the merchant's clock moves on by the
 * recorded gap, so statuses are compared at the same elapsed times as the real service showed them.
 * It drives the sandbox only through its public in-process API and HTTP.
 */

/** What the replay needs of a sandbox: a merchant of its own, its clock, and the API's URL. */
export interface Driver {
  url: string;
  merchant(vans: Array<'ACTIVE' | 'INACTIVE'>): Promise<ReplayMerchant>;
  advance(merchantId: string, ms: number): Promise<void>;
  /** The scenario it runs, for a suggested scenario to extend: its file (in-process) or its name (a running sandbox). */
  scenario(): Promise<string>;
  close(): Promise<void>;
}

export interface ReplayMerchant {
  merchantId: string;
  headers: Record<string, string>;
  checkoutHeaders: Record<string, string>;
  vans: string[];
}

/** Each VAN funded with this much (rupees): a session's payouts are not refused for want of funds the real account had. */
const FUNDS = 100_000_000;

/** An in-process sandbox on 127.0.0.1 (memory store, manual clock): verify's default. */
export async function inProcessDriver(options: SandboxOptions = {}): Promise<Driver> {
  const app = await createApp({ data: 'memory', clock: 'manual', seed: 1, logLevel: 'silent', ...options });
  const sb = app.sandbox;
  const serving = await serve(app, '127.0.0.1', 0, null, sb.config);
  return {
    url: serving.url,
    async merchant(vans) {
      const m = await sb.admin.createMerchant({ balance: FUNDS, clock: { mode: 'manual' } });
      const all = [m.account_no];
      for (let i = 1; i < vans.length; i++) all.push((await sb.admin.addAccount(m.merchant_id, { balance: FUNDS })).account_no);
      for (const [i, status] of vans.entries()) if (status === 'INACTIVE') await sb.admin.setAccountStatus(all[i] as string, { status });
      return { merchantId: m.merchant_id, headers: m.headers, checkoutHeaders: m.checkout_headers, vans: all };
    },
    advance: async (merchantId, ms) => {
      if (ms > 0) await sb.admin.merchants.advance(merchantId, ms);
    },
    scenario: async () => sb.scenario().source ?? sb.scenario().name,
    close: async () => {
      await serving.close(0);
      await sb.close();
    },
  };
}

/** A running sandbox at `url` (its control API, with the admin token if it has one). */
export function httpDriver(url: string, adminToken?: string): Driver {
  const base = url.replace(/\/+$/, '');
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/__sandbox${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(adminToken ? { authorization: `Bearer ${adminToken}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    if (!res.ok) throw new Error(`${method} /__sandbox${path} answered ${res.status}: ${String(json?.error ?? '')}`);
    return json as Record<string, unknown>;
  };
  return {
    url: base,
    async merchant(vans) {
      const m = await control('POST', '/merchants', { balance: FUNDS, clock: { mode: 'manual' } });
      const id = String(m.merchant_id);
      const all = [String(m.account_no)];
      for (let i = 1; i < vans.length; i++) all.push(String((await control('POST', `/merchants/${id}/accounts`, { balance: FUNDS })).account_no));
      for (const [i, status] of vans.entries()) if (status === 'INACTIVE') await control('PATCH', `/accounts/${all[i]}`, { status });
      return { merchantId: id, headers: m.headers as Record<string, string>, checkoutHeaders: m.checkout_headers as Record<string, string>, vans: all };
    },
    advance: async (merchantId, ms) => {
      if (ms > 0) await control('POST', `/merchants/${merchantId}/clock/advance`, { by: `${ms}ms` });
    },
    // The control API names the scenario in force with its demos.
    scenario: async () => String((await control('GET', '/demos')).scenario ?? 'default'),
    close: async () => undefined,
  };
}

export interface Replayed {
  call: Call;
  sandbox: Answer;
  differences: Difference[];
}

export interface ReplayResult {
  replayed: Replayed[];
  skipped: Skipped[];
  /** Each recorded payout's status checks, with what each side answered (for sequences and suggested timelines). */
  payouts: Map<string, { method: string | null; initialStatus: string | null; observations: Observation[] }>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const dataOf = (body: unknown): Record<string, unknown> => (isObject(body) && isObject(body.data) ? body.data : {});

/** Every string or number in a value equal to a recorded id, as the sandbox's id (a number stays one while the id is digits). */
export function substitute<T>(value: T, ids: Map<string, string>): T {
  if (typeof value === 'string') return (ids.get(value) ?? value) as T;
  if (typeof value === 'number') {
    const id = ids.get(String(value));
    return (id === undefined ? value : /^\d+$/.test(id) ? Number(id) : id) as T;
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, ids)) as T;
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, ids)])) as T;
  return value;
}

/** The VANs a session uses, in order of first use, and which the real service said were not active. */
function vansOf(calls: Call[]): Array<{ van: string; status: 'ACTIVE' | 'INACTIVE' }> {
  const out = new Map<string, 'ACTIVE' | 'INACTIVE'>();
  for (const c of calls) {
    const van = (c.body?.debit_from as string | undefined) ?? c.query.account_no;
    if (typeof van !== 'string' || van === '') continue;
    const refused = isObject(c.recorded.body) && isObject(c.recorded.body.error) && c.recorded.body.error.code === 'ACCOUNT_NOT_ACTIVE';
    if (!out.has(van) || refused) out.set(van, refused ? 'INACTIVE' : (out.get(van) ?? 'ACTIVE'));
  }
  return [...out].map(([van, status]) => ({ van, status }));
}

/** The key a payout is known by in a status check (its client_ref_id, or its recorded ref_id). */
const payoutKeyOf = (c: Call, byRef: Map<string, string>) => {
  const asked = (c.query.client_ref_id ?? c.body?.client_ref_id ?? null) as string | null;
  if (asked) return asked;
  const ref = (c.query.ref_id ?? c.body?.ref_id ?? null) as string | null;
  return ref === null ? null : (byRef.get(String(ref)) ?? null);
};

export interface ReplayOptions {
  ignore?: string[];
}

/** Replays the calls against the driver's sandbox, comparing each answer with the recorded one. */
export async function replay(calls: Call[], driver: Driver, options: ReplayOptions = {}): Promise<ReplayResult> {
  const vans = vansOf(calls);
  const merchant = await driver.merchant(vans.length === 0 ? ['ACTIVE'] : vans.map((v) => v.status));
  const ids = new Map<string, string>(vans.map((v, i) => [v.van, merchant.vans[i] as string]));
  const made = madeIn(calls);
  const replayed: Replayed[] = [];
  const skipped: Skipped[] = [];
  const payouts = new Map<string, { method: string | null; initialStatus: string | null; startedAt: number; observations: Observation[] }>();
  /** Recorded ref_id → the payout's key (client_ref_id). */
  const byRef = new Map<string, string>();
  let clock: number | null = null;
  for (const c of calls) {
    if (c.operation.security === 'checkout') {
      skipped.push({
        entry: c.entry,
        reason: 'a checkout transaction is made outside this API (the reference has no call that makes one): it cannot be made again here',
      });
      continue;
    }
    const notMade = notMadeIn(c, made);
    if (notMade !== null) {
      skipped.push({ entry: c.entry, reason: notMade });
      continue;
    }
    if (clock !== null) await driver.advance(merchant.merchantId, Math.max(0, c.at - clock));
    clock = clock === null ? c.at : Math.max(clock, c.at);
    const sandbox = await send(driver.url, c, merchant, ids);
    learn(c, sandbox, ids, byRef, payouts);
    const status = c.operation.name === 'getPayoutStatus';
    const differences = compareAnswers(c.recorded, sandbox, { ignore: options.ignore, apart: status ? ['data.transaction.status'] : [] });
    if (status) observe(c, sandbox, byRef, payouts);
    replayed.push({ call: c, sandbox, differences });
  }
  for (const p of payouts.values()) {
    for (const { entry, difference } of sequenceDifferences(p.observations)) {
      if ((options.ignore ?? []).some((i) => difference.path.startsWith(i))) continue;
      replayed.find((r) => r.call.entry === entry)?.differences.push(difference);
    }
  }
  return { replayed, skipped, payouts };
}

/** What the session made (from the real service's answers): the ids a later call may use. */
interface Made {
  beneficiaries: Set<string>;
  /** Client refs and recorded ref_ids of the payouts it initialized. */
  payouts: Set<string>;
  verifications: Set<string>;
}

function madeIn(calls: Call[]): Made {
  const made: Made = { beneficiaries: new Set(), payouts: new Set(), verifications: new Set() };
  for (const c of calls) {
    const data = dataOf(c.recorded.body);
    const add = (set: Set<string>, v: unknown) => {
      if ((typeof v === 'string' && v !== '') || typeof v === 'number') set.add(String(v));
    };
    if (c.operation.name === 'createBeneficiary') add(made.beneficiaries, data.beneficiary_id);
    if (c.operation.name === 'initializePayout') {
      add(made.payouts, c.body?.client_ref_id);
      add(made.payouts, data.ref_id);
    }
    if (c.operation.name === 'verify') add(made.verifications, data.verification_id);
  }
  return made;
}

const answered = (c: Call) => c.recorded.status >= 200 && c.recorded.status < 300;

/**
 * Why a call cannot be made again here, or null: it uses a beneficiary the session did not create,
 * or (answered by the real service) reads a payout or a verification the session did not make —
 * the fresh merchant has none of them.
 */
function notMadeIn(c: Call, made: Made): string | null {
  const bene = (c.body?.beneficiary_id ?? null) as string | null;
  if (bene !== null && bene !== '' && !made.beneficiaries.has(String(bene))) return `beneficiary ${bene} is used but was not created in this session`;
  if (c.operation.name === 'getPayoutStatus' && answered(c)) {
    const key = c.query.client_ref_id ?? c.body?.client_ref_id ?? c.query.ref_id ?? c.body?.ref_id;
    if (key !== undefined && key !== null && !made.payouts.has(String(key))) return `payout ${String(key)} is read but was not initialized in this session`;
  }
  if (c.operation.name === 'getVerification' && answered(c)) {
    const id = c.params.verification_id;
    if (id !== undefined && !made.verifications.has(id)) return `verification ${id} is read but was not made in this session`;
  }
  return null;
}

/**
 * The call as the fresh merchant makes it: its credentials (the recorded ones for a call the real
 * service refused with 401: the refusal is what is compared), the sandbox's ids in place of the
 * recorded ones, the body as it was sent (JSON or a form); a GET's body fields go in its query.
 */
async function send(url: string, c: Call, m: ReplayMerchant, ids: Map<string, string>): Promise<Answer> {
  const params = substitute(c.params, ids);
  const path = c.operation.path.replace(/\{(\w+)\}/g, (_x, name: string) => encodeURIComponent(params[name] ?? ''));
  const fields = c.body === null ? null : substitute(c.body, ids);
  const asQuery = c.method === 'GET' || c.method === 'HEAD';
  const queryFields: Record<string, string> = { ...substitute(c.query, ids) };
  if (asQuery && fields !== null) for (const [k, v] of Object.entries(fields)) queryFields[k] ??= typeof v === 'string' ? v : JSON.stringify(v);
  const query = new URLSearchParams(queryFields).toString();
  const body =
    fields === null || asQuery
      ? undefined
      : c.form
        ? new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString()
        : JSON.stringify(fields);
  const own = c.operation.security === 'checkout' ? m.checkoutHeaders : m.headers;
  const headers: Record<string, string> = { ...(c.recorded.status === 401 ? c.credentials : own), accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = c.form ? 'application/x-www-form-urlencoded' : 'application/json';
  const res = await fetch(`${url}${path}${query ? `?${query}` : ''}`, { method: c.method, headers, body });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: res.status, body: parsed };
}

/** The ids the real service answered, mapped to the sandbox's: used in every later request. */
function learn(
  c: Call,
  sandbox: Answer,
  ids: Map<string, string>,
  byRef: Map<string, string>,
  payouts: Map<string, { method: string | null; initialStatus: string | null; startedAt: number; observations: Observation[] }>,
): void {
  const rec = dataOf(c.recorded.body);
  const sbx = dataOf(sandbox.body);
  const pair = (key: string) => {
    if ((typeof rec[key] === 'string' || typeof rec[key] === 'number') && (typeof sbx[key] === 'string' || typeof sbx[key] === 'number')) {
      ids.set(String(rec[key]), String(sbx[key]));
    }
  };
  switch (c.operation.name) {
    case 'initializePayout': {
      pair('ref_id');
      const key = (c.body?.client_ref_id ?? null) as string | null;
      if (key !== null && rec.ref_id !== undefined) {
        byRef.set(String(rec.ref_id), key);
        if (!payouts.has(key)) {
          payouts.set(key, {
            method: (c.body?.payment_method as string | undefined) ?? null,
            initialStatus: typeof rec.status === 'string' ? rec.status : null,
            startedAt: c.at,
            observations: [],
          });
        }
      }
      break;
    }
    case 'createBeneficiary':
      pair('beneficiary_id');
      break;
    case 'verify': {
      pair('verification_id');
      pair('ref_id');
      // An Aadhaar OTP request answers its ref_id in the verification's result.
      const r = rec.verify_response;
      const x = sbx.verify_response;
      if (isObject(r) && isObject(x) && typeof r.ref_id === 'string' && typeof x.ref_id === 'string') ids.set(r.ref_id, x.ref_id);
      break;
    }
  }
}

/** A status check both sides answered with a payout record: one observation of that payout's statuses. */
function observe(
  c: Call,
  sandbox: Answer,
  byRef: Map<string, string>,
  payouts: Map<string, { method: string | null; initialStatus: string | null; startedAt: number; observations: Observation[] }>,
): void {
  const key = payoutKeyOf(c, byRef);
  const p = key === null ? undefined : payouts.get(key);
  const rec = (dataOf(c.recorded.body).transaction as Record<string, unknown> | undefined)?.status;
  const sbx = (dataOf(sandbox.body).transaction as Record<string, unknown> | undefined)?.status;
  if (!p || typeof rec !== 'string' || typeof sbx !== 'string') return;
  p.observations.push({ entry: c.entry, elapsedMs: c.at - p.startedAt, recorded: rec, sandbox: sbx });
}
