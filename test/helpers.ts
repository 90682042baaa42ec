import request from 'supertest';
import { createApp, type SandboxApp } from '../src/app.js';
import type { SandboxOptions } from '../src/sandbox/config.js';

export const DEMO = {
  email: 'demo@payout-sandbox.test',
  key: 'sbx_key_demo_0001',
  secret: 'sbx_secret_demo_0001',
  van1: 'DEMOVAN0000000000001',
  van2: 'DEMOVAN0000000000002',
  inactiveVan: 'DEMOVAN0000000000003',
  activeBene: 'BENEDEMO000000000001',
  pendingBene: 'BENEDEMO000000000003',
};

export const OTHER = {
  email: 'other@payout-sandbox.test',
  key: 'sbx_key_other_0002',
  secret: 'sbx_secret_other_0002',
  van: 'OTHERVAN000000000001',
  bene: 'BENEOTHR000000000001',
};

export function headersOf(m: { email: string; key: string; secret: string }): Record<string, string> {
  return { 'x-merchant-email': m.email, 'x-api-key': m.key, 'x-api-secret': m.secret };
}

export const demoHeaders = headersOf(DEMO);
export const otherHeaders = headersOf(OTHER);

/** An in-memory sandbox on the manual clock, seeded, silent. */
export function testApp(options: SandboxOptions = {}): Promise<SandboxApp> {
  return createApp({ data: 'memory', clock: 'manual', seed: 1, logLevel: (process.env.TEST_LOG_LEVEL as 'silent') ?? 'silent', ...options });
}

let counter = 0;
/** A valid initialize body with inline beneficiary details; override any field. */
/** A BANK beneficiary's create body (the same payee every time: the tests that use it make one). */
export function beneficiaryBody(overrides: Record<string, unknown> = {}): Record<string, string> {
  return {
    transfer_type: 'BANK',
    beneficiary_name: 'Anita Desai',
    beneficiary_email: 'anita@example.com',
    beneficiary_mobile: '9123456780',
    account_number: '001234567890',
    ifsc_code: 'ICIC0001234',
    ...(overrides as Record<string, string>),
  };
}

export function payoutBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    client_ref_id: `CREF${String(counter).padStart(6, '0')}`,
    transfer_type: 'BANK',
    amount: 100,
    payment_method: '1001',
    debit_from: DEMO.van1,
    beneficiary_email: 'payee@example.com',
    beneficiary_mobile: '9876543210',
    beneficiary_name: 'Payee One',
    account_number: '123456789012',
    ifsc_code: 'HDFC0001234',
    purpose: 'VENDOR_PAYOUT',
    remarks: 'invoice 42',
    ...overrides,
  };
}

export function initialize(app: SandboxApp, body: Record<string, unknown>, version: 'v1' | 'v2' = 'v1', headers = demoHeaders) {
  return request(app).post(`/api/${version}/public/payment/transfer`).set(headers).send(body);
}

export function status(app: SandboxApp, query: Record<string, string>, headers = demoHeaders) {
  return request(app).get('/api/v1/public/payment/transfer/status').set(headers).query(query);
}

export function balance(app: SandboxApp, accountNo: string, headers = demoHeaders) {
  return request(app).get('/api/v1/public/balance/check').set(headers).query({ account_no: accountNo });
}

/** Advances the manual clock of an in-process app. */
export function advance(app: SandboxApp, ms: number): void {
  app.sandbox.clock.set(app.sandbox.clock.now() + ms);
}

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Fixtures } from '../src/sandbox/fixtures.js';

/** The default fixtures as an object, to be changed by a test. */
export function defaultFixtures(): Fixtures {
  return JSON.parse(readFileSync(new URL('../fixtures/default.json', import.meta.url), 'utf8')) as Fixtures;
}

/** Advances the sandbox clock through the control API (runs every due item in order). */
export async function advanceBy(app: SandboxApp, by: string): Promise<void> {
  const res = await request(app).post('/__sandbox/clock/advance').send({ by });
  if (res.status !== 200) throw new Error(`advance failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/** The payout record as the status check shows it (rate limits off in the app, or few calls). */
export async function record(app: SandboxApp, refId: string) {
  const res = await status(app, { ref_id: refId });
  if (res.status !== 200) throw new Error(`status failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.transaction;
}

export async function balanceOf(app: SandboxApp, accountNo: string = DEMO.van1): Promise<number> {
  return (await balance(app, accountNo)).body.data.current_balance;
}

/**
 * A fresh temporary directory for each test of the file, removed after it (after `cleanup`,
 * which runs first: e.g. killing a CLI process that still has files open there).
 */
export function useTempDir(cleanup?: () => void): () => string {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-test-'));
  });
  afterEach(() => {
    cleanup?.();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => dir;
}
