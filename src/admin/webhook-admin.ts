import { durationMs } from '../duration.js';
import { RequestError } from '../errors.js';
import type { SandboxCore } from '../sandbox/core.js';
import type { ProbeRun } from '../store/state.js';
import { toIso } from '../time.js';
import { probeBody, probeReceiver, syntheticPayout } from '../webhooks/probe.js';
import { merchantKeys } from '../webhooks/signing.js';
import { refuseUnfitTarget, requireMerchant } from './refusals.js';
import { MAX_GRACE_MS, parseWebhookInput } from './webhook-inputs.js';

/**
 * A merchant's webhook endpoint, as the control API and the in-process handle see it: its secret
 * and rotation, its state (enabled, or disabled after failing for `webhooks.disable_after`), the
 * replay of what it never acknowledged, and the receiver probe (whose runs are kept per merchant).
 * Each method parses its own input with webhook-inputs.ts, as the Admin's do.
 */
export class WebhookAdmin {
  constructor(private readonly sb: SandboxCore) {}

  private get endpoints() {
    return this.sb.webhooks.endpoints;
  }

  /** The merchant's endpoint: where deliveries go, enabled or disabled, failing since, disabled at. */
  endpoint(merchantId: string) {
    const m = requireMerchant(this.sb.repo, merchantId);
    const e = this.endpoints.of(merchantId);
    const unacknowledged = this.sb.webhooks
      .list({ merchantId, limit: Number.MAX_SAFE_INTEGER })
      .filter((d) => !d.replay_of && (d.state === 'pending' || d.state === 'failed' || d.state === 'undelivered')).length;
    return {
      merchant_id: merchantId,
      url: m.webhook_url ?? this.sb.config.webhookUrl,
      state: e.state,
      failing_since: e.failing_since === null ? null : toIso(e.failing_since),
      disabled_at: e.disabled_at === null ? null : toIso(e.disabled_at),
      unacknowledged,
    };
  }

  /**
   * A new webhook secret; the one it replaces still signs (beside it in X-Sandbox-Signature-V2,
   * alone in X-Sandbox-Signature) for `grace` of the merchant's clock. A rotation during a grace
   * ends the older grace at once: only the secret just replaced keeps signing.
   */
  async rotateSecret(merchantId: string, input: unknown = {}) {
    const body = parseWebhookInput.rotate(input ?? {});
    const graceMs = durationMs(body.grace ?? '24h');
    if (graceMs > MAX_GRACE_MS) throw new RequestError(400, 'The grace field must be at most 30d (30 days).');
    const m = requireMerchant(this.sb.repo, merchantId);
    const now = this.sb.clocks.now(merchantId);
    const previous = m.webhook_secret ?? m.api_secret;
    m.webhook_secret = body.secret ?? `whsec_${this.sb.random.alphanumeric(32).toLowerCase()}`;
    m.previous_webhook_secret = graceMs > 0 ? { secret: previous, expires_at: now + graceMs } : null;
    this.sb.repo.touch('merchants', merchantId);
    await this.sb.repo.persist();
    return { webhook_secret: m.webhook_secret, previous_expires_at: graceMs > 0 ? toIso(now + graceMs) : null };
  }

  /**
   * Sends every never-acknowledged delivery of the merchant (created within `from`..`to`,
   * sandbox time), oldest first, and enables its endpoint again.
   */
  async replay(merchantId: string, input: unknown = {}) {
    const body = parseWebhookInput.replay(input ?? {});
    const from = body.from === undefined ? -Infinity : Date.parse(body.from);
    const to = body.to === undefined ? Infinity : Date.parse(body.to);
    if (from > to) throw new RequestError(400, 'The from field must not be after to.');
    requireMerchant(this.sb.repo, merchantId);
    const replayed = this.sb.webhooks.replayEndpoint(merchantId, from, to);
    await this.sb.repo.persist();
    return { replayed };
  }

  /**
   * Runs the receiver probe against the merchant's endpoint (or `url`), signed as its deliveries
   * are now, and keeps the run (the last 20). An unreachable receiver fails every check (200).
   */
  async probe(merchantId: string, input: unknown = {}) {
    const body = parseWebhookInput.probe(input ?? {});
    const m = requireMerchant(this.sb.repo, merchantId);
    const url = body.url ?? m.webhook_url ?? this.sb.config.webhookUrl;
    if (!url) throw new RequestError(400, `Merchant ${merchantId} has no webhook_url (nor is --webhook-url set): give the probe a url.`);
    await refuseUnfitTarget(this.sb, url, 'probe url');
    const now = this.sb.clocks.now(merchantId);
    const van = this.sb.repo.accountsOf(merchantId)[0]?.account_no ?? '';
    const result = await probeReceiver({
      url,
      keys: merchantKeys(m, now),
      body: probeBody(syntheticPayout(merchantId, van, now), m.webhook_version ?? 'v2'),
      timeoutMs: this.sb.scenario().webhooks.timeoutMs,
      sending: (id) => this.sb.webhooks.markSending(id),
    });
    // The merchant may have been reset or restored while the probe ran: the run is kept only if it is still there.
    if (this.sb.repo.merchant(merchantId)) {
      this.endpoints.addProbe(merchantId, { at: now, ...result });
      await this.sb.repo.persist();
    }
    return result;
  }

  /** The merchant's last probe runs, newest first. */
  probes(merchantId: string) {
    requireMerchant(this.sb.repo, merchantId);
    return { probes: [...this.endpoints.of(merchantId).probes].reverse().map((run: ProbeRun) => ({ ...run, at: toIso(run.at) })) };
  }
}
