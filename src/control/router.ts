import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { secretEquals } from '../api/auth.js';
import { SANDBOX_RULE_HEADER } from '../api/envelopes.js';
import { inputParser } from '../api/validation.js';
import { beneficiaryRecord, checkoutRecord, payoutRecord } from '../contract/records.js';
import { activateBeneficiary } from '../domain/beneficiaries.js';
import { createCheckoutTransaction, transitionCheckout } from '../domain/checkout.js';
import { ledgerSum } from '../domain/ledger.js';
import { forcePayoutStatus } from '../domain/lifecycle.js';
import { createMerchant, creditAccount, patchMerchant, setAccountStatus } from '../domain/merchants.js';
import { parseDuration } from '../duration.js';
import { RequestError } from '../errors.js';
import { toRupees } from '../money.js';
import type { Sandbox } from '../sandbox.js';
import { ScenarioError, loadScenario, scenarioFromValue } from '../scenario/scenario.js';
import type { State, WebhookDelivery } from '../store/state.js';
import { toIso } from '../time.js';
import { PACKAGE_ROOT, VERSION } from '../version.js';
import { noteRefusal } from './journal.js';
import { openApiDocument } from './openapi.js';
import {
  AccountStatusBody,
  AdvanceClockBody,
  BeneficiaryStatusBody,
  CheckoutStatusBody,
  CreateCheckoutBody,
  CreateMerchantBody,
  CreditBody,
  PatchMerchantBody,
  PayoutStatusBody,
  ScenarioBody,
  SnapshotBody,
} from './schemas.js';

/** Control-API failures are plain `{ error }` with the HTTP status (not the emulated API's envelopes). */
function controlErrorHandler(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (err instanceof RequestError && err.httpCode < 500) {
    res.status(err.httpCode).json({ error: err.message });
    return;
  }
  next(err);
}

function clockView(sb: Sandbox) {
  return { now: toIso(sb.clock.now()), mode: sb.clock.mode, speed: sb.clock.mode === 'manual' ? 0 : sb.clock.speed };
}

function deliveryView(d: WebhookDelivery, next: number | null) {
  return {
    delivery_id: d.delivery_id,
    merchant_id: d.merchant_id,
    ref_id: d.ref_id,
    event_status: d.event_status,
    version: d.version,
    target_url: d.target_url,
    state: d.state,
    wrong_signature: d.wrong_signature,
    duplicate_of: d.duplicate_of,
    created_at: toIso(d.created_at),
    next_attempt_at: next === null ? null : toIso(next),
    attempts: d.attempts.map((a) => ({ ...a, at: toIso(a.at) })),
    body: JSON.parse(d.body) as unknown,
  };
}

interface Snapshot {
  state: State;
  clock: number;
  scenario: ReturnType<Sandbox['scenario']>;
  at: string;
}

/** The sandbox's own surface, apart from the emulated API (SPEC 9), under `/__sandbox`. */
export function controlRouter(sb: Sandbox): Router {
  const router = Router();
  const snapshots = new Map<string, Snapshot>();
  const parse = {
    advance: inputParser(AdvanceClockBody),
    checkout: inputParser(CreateCheckoutBody),
    merchant: inputParser(CreateMerchantBody),
    patchMerchant: inputParser(PatchMerchantBody),
    credit: inputParser(CreditBody),
    accountStatus: inputParser(AccountStatusBody),
    payoutStatus: inputParser(PayoutStatusBody),
    beneficiaryStatus: inputParser(BeneficiaryStatusBody),
    checkoutStatus: inputParser(CheckoutStatusBody),
    scenario: inputParser(ScenarioBody),
    snapshot: inputParser(SnapshotBody),
  };
  const account = (no: string) => {
    const a = sb.repo.anyAccount(no);
    if (!a) throw new RequestError(404, `No account ${no}.`);
    return a;
  };
  /** Writes the change, then lets anything now due (a webhook of a forced change) go out. */
  const commit = async () => {
    await sb.repo.persist();
    sb.scheduler.runDue().catch((err: unknown) => sb.logger.error({ err }, 'running due items failed'));
  };

  router.use('/__sandbox', (req, _res, next) => {
    const token = sb.config.adminToken;
    if (token === null) return next();
    const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
    if (!secretEquals(given, token)) return next(new RequestError(401, 'The control API needs Authorization: Bearer <admin token>.'));
    next();
  });

  router.get('/__sandbox/health', (_req, res) => {
    res.json({ ok: true, version: VERSION });
  });

  router.post('/__sandbox/reset', async (_req, res) => {
    snapshots.clear();
    await sb.reset();
    res.json({ ok: true, clock: clockView(sb), scenario: sb.scenario().name });
  });

  router.post('/__sandbox/merchants', async (req, res) => {
    const { merchant, account: van } = createMerchant(sb, parse.merchant(req.body));
    await sb.repo.persist();
    res.status(201).json({
      merchant_id: merchant.merchant_id,
      name: merchant.name,
      email: merchant.email,
      api_key: merchant.api_key,
      api_secret: merchant.api_secret,
      access_token: merchant.access_token,
      account_no: van.account_no,
      balance: toRupees(van.balance),
      headers: { 'x-merchant-email': merchant.email, 'x-api-key': merchant.api_key, 'x-api-secret': merchant.api_secret },
      checkout_headers: { MerchantId: merchant.merchant_id, AccessToken: merchant.access_token },
    });
  });

  router.patch('/__sandbox/merchants/:email', async (req, res) => {
    const merchant = sb.repo.merchantByEmailAddress(String(req.params.email));
    if (!merchant) throw new RequestError(404, `No merchant with the email ${req.params.email}.`);
    patchMerchant(merchant, parse.patchMerchant(req.body));
    await sb.repo.persist();
    res.json({
      merchant_id: merchant.merchant_id,
      email: merchant.email,
      webhook_url: merchant.webhook_url,
      webhook_version: merchant.webhook_version,
      per_transaction_limit: toRupees(merchant.per_transaction_limit),
    });
  });

  router.post('/__sandbox/accounts/:account_no/credit', async (req, res) => {
    const a = account(String(req.params.account_no));
    creditAccount(sb, a, parse.credit(req.body).amount);
    await sb.repo.persist();
    res.json({ account_no: a.account_no, balance: toRupees(a.balance) });
  });

  router.patch('/__sandbox/accounts/:account_no', async (req, res) => {
    const a = account(String(req.params.account_no));
    setAccountStatus(a, parse.accountStatus(req.body).status);
    await sb.repo.persist();
    res.json({ account_no: a.account_no, status: a.status, balance: toRupees(a.balance) });
  });

  router.get('/__sandbox/accounts/:account_no/ledger', (req, res) => {
    const a = account(String(req.params.account_no));
    const sum = ledgerSum(a);
    res.json({
      account_no: a.account_no,
      merchant_id: a.merchant_id,
      status: a.status,
      balance: toRupees(a.balance),
      ledger_sum: toRupees(sum),
      balanced: sum === a.balance,
      entries: a.ledger.map((e) => ({
        seq: e.seq,
        at: toIso(e.at),
        type: e.type,
        amount: toRupees(e.amount),
        balance_after: toRupees(e.balance_after),
        ref: e.ref,
        note: e.note,
      })),
    });
  });

  router.get('/__sandbox/clock', (_req, res) => {
    res.json(clockView(sb));
  });

  router.post('/__sandbox/clock/advance', async (req, res) => {
    const { by } = parse.advance(req.body);
    if (sb.clock.mode !== 'manual') throw new RequestError(409, 'The clock is real: start the sandbox with --clock manual to advance it.');
    await sb.scheduler.advance(parseDuration(by) ?? 0);
    res.json(clockView(sb));
  });

  router.post('/__sandbox/payouts/:ref_id/status', async (req, res) => {
    const refId = String(req.params.ref_id);
    const payout = sb.repo.anyPayout(refId);
    if (!payout) throw new RequestError(404, `No payout with ref_id ${refId}.`);
    const body = parse.payoutStatus(req.body);
    const from = payout.status;
    const result = forcePayoutStatus(sb, payout, body.status, body.bank_res_msg);
    if (!result.ok) {
      noteRefusal(res, { id: refId, from, to: body.status, reason: result.reason });
      throw new RequestError(409, result.reason);
    }
    await commit();
    res.json({ merchant_id: payout.merchant_id, transaction: payoutRecord(payout) });
  });

  router.post('/__sandbox/beneficiaries/:id/status', async (req, res) => {
    const id = String(req.params.id);
    const b = sb.repo.anyBeneficiary(id);
    if (!b) throw new RequestError(404, `No beneficiary ${id}.`);
    parse.beneficiaryStatus(req.body);
    activateBeneficiary(sb, b);
    await sb.repo.persist();
    const merchant = sb.repo.merchant(b.merchant_id);
    res.json(merchant ? beneficiaryRecord(b, merchant) : { bene_id: b.bene_id, status: b.status });
  });

  router.post('/__sandbox/checkout/transactions', async (req, res) => {
    const body = parse.checkout(req.body);
    const merchant = sb.repo.merchant(body.merchant_id);
    if (!merchant) throw new RequestError(404, `No merchant with merchant_id "${body.merchant_id}".`);
    const { transaction, rule } = createCheckoutTransaction(sb, merchant, body);
    await sb.repo.persist();
    res.set(SANDBOX_RULE_HEADER, rule).status(201).json(checkoutRecord(transaction, merchant));
  });

  router.post('/__sandbox/checkout/transactions/:id/status', async (req, res) => {
    const id = String(req.params.id);
    const t = sb.repo.anyCheckoutTransaction(id);
    if (!t) throw new RequestError(404, `No checkout transaction ${id}.`);
    const { status } = parse.checkoutStatus(req.body);
    const from = t.status;
    const refusal = transitionCheckout(sb, t, status);
    if (refusal) {
      noteRefusal(res, { id, from, to: status, reason: refusal });
      throw new RequestError(409, refusal);
    }
    await sb.repo.persist();
    const merchant = sb.repo.merchant(t.merchant_id);
    res.json(merchant ? checkoutRecord(t, merchant) : { payment_id: t.payment_id, status: t.status });
  });

  router.get('/__sandbox/webhooks', (req, res) => {
    const q = req.query as Record<string, string | undefined>;
    const limit = Math.min(1000, Math.max(1, Number(q.limit ?? 100) || 100));
    const list = sb.webhooks.list({ refId: q.ref_id, merchantId: q.merchant_id, limit });
    res.json({ deliveries: list.map((d) => deliveryView(d, sb.webhooks.nextAttemptAt(d))) });
  });

  router.post('/__sandbox/webhooks/:delivery_id/redeliver', async (req, res) => {
    const d = sb.webhooks.redeliver(String(req.params.delivery_id));
    if (!d) throw new RequestError(404, `No webhook delivery ${req.params.delivery_id}.`);
    await commit();
    res.status(202).json(deliveryView(d, sb.webhooks.nextAttemptAt(d)));
  });

  router.get('/__sandbox/requests', (req, res) => {
    const limit = Math.min(sb.journal.capacity, Math.max(1, Number((req.query as Record<string, string>).limit ?? 100) || 100));
    res.json({ requests: sb.journal.list(limit) });
  });

  router.get('/__sandbox/requests/:request_id', (req, res) => {
    const entry = sb.journal.get(String(req.params.request_id));
    if (!entry) throw new RequestError(404, `No request ${req.params.request_id} in the journal (it keeps the last ${sb.journal.capacity}).`);
    res.json(entry);
  });

  router.put('/__sandbox/scenario', async (req, res) => {
    const body = parse.scenario(req.body);
    if ((body.name === undefined) === (body.scenario === undefined)) throw new RequestError(400, 'Give either name (a file in scenarios/) or scenario (the scenario itself).');
    try {
      if (body.name !== undefined) {
        const file = ['json', 'yaml', 'yml'].map((ext) => resolve(PACKAGE_ROOT, 'scenarios', `${body.name}.${ext}`)).find((f) => existsSync(f));
        if (!file) throw new RequestError(404, `No scenario named ${body.name} in scenarios/.`);
        sb.setScenario(await loadScenario(file));
      } else {
        sb.setScenario(scenarioFromValue(body.scenario, 'inline'));
      }
    } catch (err) {
      if (err instanceof ScenarioError) throw new RequestError(400, err.message);
      throw err;
    }
    res.json({ name: sb.scenario().name, source: sb.scenario().source });
  });

  router.get('/__sandbox/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });

  router.get('/__sandbox/snapshots', (_req, res) => {
    res.json({ snapshots: [...snapshots.entries()].map(([name, s]) => ({ name, at: s.at })) });
  });

  router.post('/__sandbox/snapshots', (req, res) => {
    const { name } = parse.snapshot(req.body);
    const at = toIso(sb.clock.now());
    snapshots.set(name, { state: structuredClone(sb.repo.state), clock: sb.clock.now(), scenario: sb.scenario(), at });
    res.status(201).json({ name, at });
  });

  router.post('/__sandbox/snapshots/:name/restore', async (req, res) => {
    const snap = snapshots.get(String(req.params.name));
    if (!snap) throw new RequestError(404, `No snapshot named ${req.params.name}.`);
    sb.setScenario(snap.scenario);
    sb.replaceState(structuredClone(snap.state), snap.clock);
    await sb.repo.persist();
    res.json({ name: req.params.name, clock: clockView(sb) });
  });

  router.use('/__sandbox', (req, _res, next) => next(new RequestError(404, `No control route ${req.method} ${req.originalUrl.split("?")[0]}.`)));
  router.use('/__sandbox', controlErrorHandler);
  return router;
}
