import type { SandboxApp } from './app.js';
import { boundAddresses, type Serving } from './listen.js';
import { VERSION } from './version.js';

/** What the CLI prints once listening: where it is, what it runs, the demo merchant's credentials. */
export function banner(app: SandboxApp, serving: Serving): string {
  const sb = app.sandbox;
  const demo = sb.repo.allMerchants()[0];
  const { bound, reachable } = boundAddresses(serving.servers[0]);
  // The URL to give others: a wildcard's first address that is not this machine's loopback.
  const publicUrl = (urls: string[], fallback: string) => urls.find((u) => !/\/\/(127\.|\[::1\])/.test(u)) ?? urls[0] ?? fallback;
  const apiUrl = publicUrl(reachable, serving.url);
  const checkoutUrl = serving.servers[1] ? publicUrl(boundAddresses(serving.servers[1]).reachable, serving.checkoutUrl) : apiUrl;
  const lines = [
    `payout-sandbox ${VERSION}`,
    `  Listening on:  ${bound}${reachable.length > 1 ? ` (${reachable.join(', ')})` : ''}`,
    `  API base URL:  ${apiUrl}`,
    `  Checkout URL:  ${checkoutUrl}`,
    `  Control URL:   ${apiUrl}/__sandbox${sb.config.adminToken ? ' (Authorization: Bearer <admin token>)' : ''}`,
    `  Dashboard:     ${apiUrl}/__sandbox/ui`,
    `  Stories:       ${apiUrl}/__sandbox/ui#/stories (error flows told step by step)`,
    `  Data:          ${sb.store.kind === 'memory' ? 'memory' : `${sb.store.path} (+ ${sb.store.path}.log)`}`,
    `  Scenario:      ${sb.scenario().name}${sb.scenario().source ? ` (${sb.scenario().source})` : ''}`,
    `  Clock:         ${sb.clock.mode}${sb.clock.mode === 'real' && sb.clock.speed !== 1 ? ` x${sb.clock.speed}` : ''}, seed ${sb.random.seed}`,
  ];
  if (demo) {
    lines.push(
      `  Demo merchant: ${demo.name}`,
      `    x-merchant-email: ${demo.email}`,
      `    x-api-key:        ${demo.api_key}`,
      `    x-api-secret:     ${demo.api_secret}`,
      `    MerchantId:       ${demo.merchant_id}`,
      `    AccessToken:      ${demo.access_token}`,
      `    Accounts:         ${sb.repo
        .accountsOf(demo.merchant_id)
        .map((a) => `${a.account_no} (${a.status})`)
        .join(', ')}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
