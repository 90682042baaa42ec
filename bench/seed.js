// Writes a data file holding `count` payouts, made by the project's own code in-process (the
// domain's initializePayout on a memory sandbox, then an advance): as a sandbox used for a while
// holds them. Nine in ten have settled (Success) and their webhook was attempted (it fails at
// once: no network; no retries), the outbox keeping the newest 10,000 finished deliveries (the
// default retention); one in ten is still Pending with its settlement due in an hour (a due item
// each). Every payout has its three ledger entries. Used by bench/payouts.js.
import { readFileSync, writeFileSync } from 'node:fs';
import { initializePayout } from '../dist/domain/payouts.js';
import { openSandbox } from '../dist/index.js';

/** Seeds `path` with `count` payouts of the demo merchant; resolves to one of their ref_ids and the merchant's headers. */
export async function seedDataFile(path, count) {
  const sb = await openSandbox({
    data: 'memory',
    clock: 'manual',
    seed: 1,
    logLevel: 'silent',
    rateLimits: false,
    journalSize: 0,
    // Webhooks are made and attempted, and fail at once (no network): deliveries with attempts and retries.
    webhookUrl: 'http://127.0.0.1:9/hooks',
    webhookAllow: ['seeded.invalid'],
    maxRecords: 100_000_000,
    maxRecordsPerMerchant: 10_000_000,
  });
  const merchant = sb.repo.allMerchants()[0];
  const account = sb.repo.accountsOf(merchant.merchant_id)[0];
  await sb.admin.credit(account.account_no, count * 10);
  const shipped = JSON.parse(readFileSync(new URL('../scenarios/default.json', import.meta.url), 'utf8'));
  await sb.admin.useScenario({ scenario: { ...shipped, webhooks: { ...shipped.webhooks, retry_schedule: [] } } });
  let ref = '';
  for (let i = 0; i < count; i++) {
    const { payout } = initializePayout(
      sb,
      merchant,
      {
        client_ref_id: `SEED${String(i).padStart(9, '0')}`,
        amount: 100,
        payment_method: '1001',
        debit_from: account.account_no,
        purpose: 'VENDOR_PAYOUT',
        remarks: i % 10 === 0 ? 'sbx:Pending@0s>Success@1h' : 'seeded',
        beneficiary_name: 'Seeded Payee',
        beneficiary_email: 's@example.com',
        beneficiary_mobile: '9876543210',
        account_number: '123456789012',
        ifsc_code: 'HDFC0000001',
      },
      'v2',
    );
    ref = payout.ref_id;
  }
  await sb.admin.advance('6s');
  await sb.admin.settleWebhooks();
  const state = sb.store.state;
  const counts = {
    payouts: Object.keys(state.payouts).length,
    ledger_entries: Object.values(state.accounts).reduce((n, a) => n + a.ledger.length, 0),
    webhook_deliveries: Object.keys(state.webhook_deliveries).length,
    due_items: Object.keys(state.scheduler.items).length,
  };
  writeFileSync(path, JSON.stringify(state));
  await sb.close();
  return {
    ref,
    account: account.account_no,
    headers: { 'x-merchant-email': merchant.email, 'x-api-key': merchant.api_key, 'x-api-secret': merchant.api_secret },
    counts,
  };
}
