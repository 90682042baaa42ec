import { randomBytes } from 'node:crypto';
import { OPERATIONS } from '../contract/operations.js';
import { formatDuration } from '../duration.js';
import type { ApiVersion } from '../vocab.js';
import { EXIT, reason, type SandboxClient, VerbError } from './http.js';

/**
 * The scenario's payout outcomes by name (`payout.success`, `payout.reversed`,
 * `payout.rejected.INSUFFICIENT_BALANCE`, `payout.fault.500_after_created`, …), named from what
 * `GET /__sandbox/demos` says each single-amount rule does (docs/companion.md has the rule), and a
 * payout made to take one: `trigger` and the MCP server's `initialize_payout`.
 */

type Step = { status: string; after_ms?: number; after_polls?: number };
type Plan = { kind: 'timeline'; initial_status: string; steps: Step[]; lag_ms: number };
type Fault = { type: 'error' | 'delay' | 'drop'; http_code: number; delay_ms: number; create: boolean };
type DemoOutcome = { kind: 'reject'; code: string } | Plan | (Omit<Plan, 'kind'> & { kind: 'fault'; fault: Fault });

interface Demos {
  scenario: string;
  demos: Array<{ name: string; group: string; description: string; amount: number; outcome?: DemoOutcome }>;
  default?: { amount: number; outcome: Plan };
}

export interface Outcome {
  /** `payout.reversed`, … */
  name: string;
  /** The amount that makes it (rupees). */
  amount: number;
  /** The scenario rule that decides it (`default`: no rule, the default timeline). */
  rule: string;
  group: string;
  description: string;
  /** Any amount takes this outcome (the default timeline): `--amount` may choose it. */
  anyAmount: boolean;
  /** A fault that holds the answer (its payout is made at once): not waited for. */
  held: boolean;
}

function timelineName(p: Omit<Plan, 'kind'>): string {
  const statuses = p.steps.map((s) => s.status);
  const success = statuses.indexOf('Success');
  if (success >= 0 && statuses.slice(success + 1).includes('Failed')) return 'reversed';
  if (statuses.length === 0) return p.initial_status.toLowerCase();
  const parts: string[] = [];
  if (p.initial_status === 'NEW') parts.push('new');
  if (p.lag_ms > 0) parts.push('not_found_first');
  if (statuses.slice(0, -1).includes('Unknown')) parts.push('unknown');
  const final = statuses[statuses.length - 1];
  const onPoll = p.steps.some((s) => s.after_polls !== undefined);
  // Success is the end a qualified timeline is assumed to reach: `payout.unknown` ends Success, `payout.unknown.failed` does not.
  if (final !== 'Success' || onPoll || parts.length === 0) parts.push(`${final.toLowerCase()}${onPoll ? '_on_poll' : ''}`);
  return parts.join('.');
}

function faultName(f: Fault): string {
  const made = f.create ? 'after_created' : 'not_created';
  if (f.type === 'error') return `${f.http_code}_${made}`;
  if (f.type === 'drop') return `dropped_${made}`;
  return `delayed_${formatDuration(f.delay_ms)}${f.create ? '' : '_not_created'}`;
}

function nameOf(o: DemoOutcome): string {
  if (o.kind === 'reject') return `payout.rejected.${o.code}`;
  if (o.kind === 'fault') return `payout.fault.${faultName(o.fault)}`;
  return `payout.${timelineName(o)}`;
}

/** Total time of a timeline's timed steps, as `30m` (to tell two timelines of the same statuses apart). */
function span(o: DemoOutcome): string | null {
  if (o.kind === 'reject') return null;
  const ms = o.steps.reduce((t, s) => t + (s.after_ms ?? 0), 0);
  return ms > 0 ? formatDuration(ms) : null;
}

/** The outcomes of the scenario in force, by name, the default timeline's first. */
export async function outcomes(client: SandboxClient): Promise<{ scenario: string; outcomes: Outcome[] }> {
  const d = await client.control<Demos>('GET', '/demos');
  const list: Outcome[] = [];
  const taken = new Set<string>();
  const add = (base: string, o: DemoOutcome, rest: Omit<Outcome, 'name' | 'held'>) => {
    const when = span(o);
    const candidates = [base, ...(when ? [`${base}.after_${when}`] : []), `${base}.${rest.amount.toFixed(2)}`];
    const name = candidates.find((c) => !taken.has(c)) ?? `${base}.${rest.rule}`;
    taken.add(name);
    list.push({ name, held: o.kind === 'fault' && o.fault.type === 'delay' && o.fault.create, ...rest });
  };
  if (d.default) {
    add(nameOf(d.default.outcome), d.default.outcome, {
      amount: d.default.amount,
      rule: 'default',
      group: 'Timelines',
      description: `the default timeline: ${[d.default.outcome.initial_status, ...d.default.outcome.steps.map((s) => `${s.status}${s.after_ms ? ` after ${formatDuration(s.after_ms)}` : ''}`)].join(' → ')} (any amount no rule claims; --amount chooses it)`,
      anyAmount: true,
    });
  }
  for (const demo of d.demos) {
    if (!demo.outcome) continue;
    add(nameOf(demo.outcome), demo.outcome, { amount: demo.amount, rule: demo.name, group: demo.group, description: demo.description, anyAmount: false });
  }
  return { scenario: d.scenario, outcomes: list };
}

/** The outcomes as a table: name, amount, rule, what it does. */
export function outcomeTable(scenario: string, list: Outcome[]): string {
  const width = Math.max(...list.map((o) => o.name.length));
  const rows = list.map((o) => `  ${o.name.padEnd(width)}  ${o.amount.toFixed(2).padStart(10)}  ${o.rule.padEnd(8)}  ${o.description}`);
  return `Outcomes of scenario ${scenario} (name, amount, rule, what happens):\n${rows.join('\n')}\n`;
}

/**
 * The outcome named by `word`: its name, its rule's name, or its magic amount. An unknown one is
 * a usage error (exit 2) listing them.
 */
export function findOutcome(scenario: string, list: Outcome[], word: string): Outcome {
  const amount = /^\d+(\.\d{1,2})?$/.test(word) ? Number(word) : null;
  const found =
    list.find((o) => o.name === word) ??
    list.find((o) => o.rule === word) ??
    (amount === null ? undefined : list.find((o) => !o.anyAmount && o.amount === amount));
  if (!found) throw new VerbError(`unknown outcome "${word}".\n${outcomeTable(scenario, list)}`, EXIT.usage);
  return found;
}

/** A merchant as `GET /__sandbox/merchants` lists it. */
export interface MerchantEntry {
  merchant_id: string;
  name: string;
  email: string;
  headers: Record<string, string>;
  webhook_secret: string;
  accounts: Array<{ account_no: string; status: string; balance: number }>;
}

export async function merchantOf(client: SandboxClient, merchantId: string): Promise<MerchantEntry> {
  const { merchants } = await client.control<{ merchants: MerchantEntry[] }>('GET', '/merchants');
  const m = merchants.find((x) => x.merchant_id === merchantId);
  if (!m) throw new VerbError(`no merchant ${merchantId} in the sandbox at ${client.url} (it has: ${merchants.map((x) => x.merchant_id).join(', ')}).`);
  return m;
}

/** What a triggered payout came to: initialize's answer, and the payout (null when none was made). */
export interface Triggered {
  outcome: string;
  rule: string;
  amount: number;
  client_ref_id: string;
  initialize: { status: number | null; error: string | null; body: unknown };
  ref_id: string | null;
  /** `GET /__sandbox/payouts/{ref_id}`: record, rule, timeline, deliveries. */
  payout: Record<string, unknown> | null;
}

const initializePath = (version: ApiVersion) =>
  OPERATIONS.find((o) => o.id === `initializePayout${version.toUpperCase()}`)?.path ?? `/api/${version}/public/payment/transfer`;

/**
 * Makes a payout that takes `outcome` through the emulated API with the merchant's credentials,
 * from its first ACTIVE account to a fixed beneficiary; finds it (by its client_ref_id, also when
 * a fault answered initialize) and answers it with its timeline.
 */
export async function trigger(
  client: SandboxClient,
  merchant: MerchantEntry,
  outcome: Outcome,
  options: { amount?: number; version?: ApiVersion } = {},
): Promise<Triggered> {
  const amount = options.amount ?? outcome.amount;
  const account = merchant.accounts.find((a) => a.status === 'ACTIVE') ?? merchant.accounts[0];
  if (!account) throw new VerbError(`merchant ${merchant.merchant_id} has no account to pay from.`);
  const clientRefId = `TRG${Date.now().toString(36).toUpperCase()}${randomBytes(3).toString('hex').toUpperCase()}`;
  const body = {
    client_ref_id: clientRefId,
    transfer_type: 'BANK',
    amount,
    payment_method: amount <= 200_000 ? '1001' : '1002',
    debit_from: account.account_no,
    // No space: valid under either reading of "alphanumeric only" a scenario may take.
    beneficiary_name: 'RaviKumar',
    beneficiary_email: 'ravi@example.com',
    beneficiary_mobile: '9812345670',
    account_number: '50100012345678',
    ifsc_code: 'HDFC0001234',
    purpose: 'VENDOR_PAYOUT',
    remarks: `payout-sandbox trigger ${outcome.rule}`.slice(0, 50),
  };
  // A held answer (a delay fault) is not waited for: its payout is made before the wait.
  const signal = AbortSignal.timeout(outcome.held ? 1500 : 30_000);
  let initialize: Triggered['initialize'];
  try {
    const a = await client.api('POST', initializePath(options.version ?? 'v2'), merchant.headers, body, signal);
    initialize = { status: a.status, error: null, body: a.json ?? a.text };
  } catch (err) {
    if (err instanceof VerbError) throw err;
    const code = reason(err);
    const error =
      (err as Error).name === 'TimeoutError' ? 'no answer yet (the answer is held)' : code === 'ECONNRESET' ? 'no answer: the connection was closed' : code;
    initialize = { status: null, error, body: null };
  }
  const page = await client.control<{ payouts: Array<{ ref_id: number | string; client_ref_id: string }> }>(
    'GET',
    `/merchants/${encodeURIComponent(merchant.merchant_id)}/payouts?limit=50`,
  );
  const made = page.payouts.find((p) => p.client_ref_id === clientRefId);
  const refId = made ? String(made.ref_id) : null;
  const payout = refId ? await client.control<Record<string, unknown>>('GET', `/payouts/${refId}`) : null;
  return { outcome: outcome.name, rule: outcome.rule, amount, client_ref_id: clientRefId, initialize, ref_id: refId, payout };
}
