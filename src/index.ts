import type { Admin, NewMerchantInput } from './admin/admin.js';
import type { Sandbox } from './admin/sandbox.js';
import { credentialHeaders } from './admin/views.js';
import { createApp, type SandboxApp } from './app.js';
import { type Serving, serve } from './listen.js';
import type { ReviewReport } from './observe/review/report.js';
import type { SandboxOptions } from './sandbox/config.js';
import { gates } from './sandbox/gates.js';
import { abandon } from './sandbox/open.js';

export type { Admin } from './admin/admin.js';
export { openSandbox, type Sandbox } from './admin/sandbox.js';
export { appOf, createApp, type SandboxApp } from './app.js';
export { type VerifyOptions, type VerifyReport, verifyAndSuggest, verifySession } from './fidelity/verify.js';
export type { Finding, ReviewReport } from './observe/review/report.js';
export type { SandboxConfig, SandboxOptions } from './sandbox/config.js';
export type { Fixtures } from './sandbox/fixtures.js';
export type { ScenarioFile } from './scenario/schema.js';
export { VERSION } from './version.js';
export { signBody } from './webhooks/outbox.js';

export interface SandboxMerchant {
  merchantId: string;
  email: string;
  apiKey: string;
  apiSecret: string;
  accessToken: string;
  /** The merchant's VANs, ACTIVE ones first. */
  accounts: string[];
  /** The three dashboard headers. */
  headers: Record<'x-merchant-email' | 'x-api-key' | 'x-api-secret', string>;
  /** The two checkout headers. */
  checkoutHeaders: Record<'MerchantId' | 'AccessToken', string>;
}

/** A merchant of its own for a test: its credentials, and its clock, snapshots and reset. */
export interface MerchantHandle extends SandboxMerchant {
  /** Its clock: now, mode, and whether it follows the sandbox clock. */
  clock(): ReturnType<Admin['merchants']['clock']>;
  /** Moves only this merchant's clock (`'24h'`, or milliseconds), running its due items in order. */
  advance(duration: string | number): Promise<void>;
  /** Saves this merchant's records, clock and counters under `name`. */
  snapshot(name: string): { name: string; at: string };
  restore(name: string): Promise<void>;
  /** Back to how it was created (same credentials); its snapshots are kept. */
  reset(): Promise<void>;
  /** Its integration review: whether its code handled what the sandbox threw at it. */
  review(): ReviewReport;
}

export interface StartedSandbox {
  /** The emulated dashboard API's base URL. */
  url: string;
  /** The checkout API's base URL (the same as `url` unless `checkoutPort` is given). */
  checkoutUrl: string;
  /** The control API: `${url}/__sandbox`. */
  controlUrl: string;
  /** The first merchant of the fixtures (the demo merchant by default). */
  merchant: SandboxMerchant;
  app: SandboxApp;
  /** Manual clock: moves time on (`'24h'`, or milliseconds), firing everything due in order. */
  advance(duration: string | number): Promise<void>;
  /** Back to the fixtures and the scenario; the clock back to its start; snapshots dropped. */
  reset(): Promise<void>;
  /** Saves the whole state, the clock and the scenario under `name`. */
  snapshot(name: string): { name: string; at: string };
  /** Brings back a snapshot taken with snapshot() (or through the control API). */
  restore(name: string): Promise<void>;
  /** Every admin operation of the control API, in-process (the same implementation). */
  admin: Admin;
  /** A new merchant (as POST /__sandbox/merchants takes it; `clock` for a clock of its own). */
  createMerchant(input?: NewMerchantInput): Promise<MerchantHandle>;
  /** The handle of an existing merchant (a fixture one, or one created before). */
  tenant(merchantId: string): MerchantHandle;
  /** The integration review of every merchant (see docs/review.md); a merchant handle's `review()` is its own. */
  review(): ReviewReport;
  /** Waits for webhook attempts under way (and what they schedule that is already due). */
  settleWebhooks(): Promise<void>;
  /**
   * Closes every socket, timer and file handle (and writes `coverageReport`); rejects when
   * coverage is below `coverageMin`, or when a file store cannot write its changes (a full disk:
   * call it again to try again).
   */
  stop(): Promise<void>;
}

function merchantOf(sb: Sandbox, merchantId: string): SandboxMerchant {
  const m = sb.repo.merchant(merchantId);
  if (!m) throw new Error(`No merchant with merchant_id "${merchantId}".`);
  return {
    merchantId: m.merchant_id,
    email: m.email,
    apiKey: m.api_key,
    apiSecret: m.api_secret,
    accessToken: m.access_token,
    accounts: sb.repo.accountsOf(m.merchant_id).map((a) => a.account_no),
    headers: credentialHeaders(m),
    checkoutHeaders: { MerchantId: m.merchant_id, AccessToken: m.access_token },
  };
}

function handleOf(sb: Sandbox, merchantId: string): MerchantHandle {
  const admin = sb.admin.merchants;
  return {
    ...merchantOf(sb, merchantId),
    clock: () => admin.clock(merchantId),
    advance: async (duration) => {
      await admin.advance(merchantId, duration);
    },
    snapshot: (name) => admin.snapshot(merchantId, name),
    restore: async (name) => {
      await admin.restore(merchantId, name);
    },
    reset: async () => {
      await admin.reset(merchantId);
    },
    review: () => sb.admin.review(merchantId),
  };
}

/**
 * Starts a sandbox in-process, for a test suite: on a free port of 127.0.0.1, in memory and
 * silent unless told otherwise.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<StartedSandbox> {
  const app = await createApp({ port: 0, data: 'memory', logLevel: 'silent', ...options });
  const sb = app.sandbox;
  let serving: Serving;
  try {
    serving = await serve(app, sb.config.host, sb.config.port, sb.config.checkoutPort, sb.config);
  } catch (err) {
    // A start that failed writes no report: only a sandbox that served does.
    await abandon(sb);
    throw err;
  }
  let stopped = false;
  const tenant = (merchantId: string) => handleOf(sb, merchantId);
  return {
    url: serving.url,
    checkoutUrl: serving.checkoutUrl,
    controlUrl: `${serving.url}/__sandbox`,
    merchant: merchantOf(sb, sb.repo.allMerchants()[0].merchant_id),
    app,
    admin: sb.admin,
    createMerchant: async (input = {}) => tenant((await sb.admin.createMerchant(input)).merchant_id),
    tenant,
    advance: async (duration) => {
      await sb.admin.advance(duration);
    },
    reset: async () => {
      await sb.admin.reset();
    },
    snapshot: (name) => sb.admin.snapshot(name),
    restore: async (name) => {
      await sb.admin.restore(name);
    },
    settleWebhooks: async () => {
      await sb.admin.settleWebhooks();
    },
    review: () => sb.admin.review(),
    stop: async () => {
      if (!stopped) {
        stopped = true;
        await serving.close(0);
      }
      // Rejects (a StoreWriteError) while a file store cannot write; stop() again tries again.
      await sb.close();
      const { failures } = gates(sb);
      if (failures.length > 0) throw new Error(failures.join('; '));
    },
  };
}
