import type { Server } from 'node:http';
import { createApp, type SandboxApp } from './app.js';
import type { SandboxOptions } from './config.js';
import { parseDuration } from './duration.js';
import { closeServers, listen, urlOf } from './listen.js';

export { createApp, type SandboxApp } from './app.js';
export type { SandboxConfig, SandboxOptions } from './config.js';
export type { Fixtures } from './fixtures.js';
export type { ScenarioFile } from './scenario/schema.js';
export { signBody } from './webhooks/outbox.js';
export { VERSION } from './version.js';

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
  /** Back to the fixtures and the scenario; the clock back to its start. */
  reset(): Promise<void>;
  /** Closes every socket, timer and file handle. */
  stop(): Promise<void>;
}

/**
 * Starts a sandbox in-process, for a test suite: on a free port of 127.0.0.1, in memory and
 * silent unless told otherwise.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<StartedSandbox> {
  const app = await createApp({ port: 0, data: 'memory', logLevel: 'silent', ...options });
  const host = app.sandbox.config.host;
  const servers: Server[] = [];
  try {
    servers.push(await listen(app, app.sandbox.config.port, host));
    if (app.sandbox.config.checkoutPort !== null) servers.push(await listen(app, app.sandbox.config.checkoutPort, host));
  } catch (err) {
    await closeServers(servers, 0);
    await app.sandbox.close();
    throw err;
  }
  const url = urlOf(servers[0], host);
  const m = app.sandbox.repo.allMerchants()[0];
  const accounts = app.sandbox.repo.accountsOf(m.merchant_id).map((a) => a.account_no);
  let stopped = false;
  return {
    url,
    checkoutUrl: servers[1] ? urlOf(servers[1], host) : url,
    controlUrl: `${url}/__sandbox`,
    merchant: {
      merchantId: m.merchant_id,
      email: m.email,
      apiKey: m.api_key,
      apiSecret: m.api_secret,
      accessToken: m.access_token,
      accounts,
      headers: { 'x-merchant-email': m.email, 'x-api-key': m.api_key, 'x-api-secret': m.api_secret },
      checkoutHeaders: { MerchantId: m.merchant_id, AccessToken: m.access_token },
    },
    app,
    advance: (duration) => {
      const ms = typeof duration === 'number' ? duration : parseDuration(duration);
      if (ms === null || !(ms >= 0)) return Promise.reject(new Error(`not a duration: ${String(duration)}`));
      return app.sandbox.scheduler.advance(ms);
    },
    reset: () => app.sandbox.reset(),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await closeServers(servers, 0);
      await app.sandbox.close();
    },
  };
}
