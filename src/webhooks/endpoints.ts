import { own } from '../own.js';
import type { Repo } from '../store/repo.js';
import type { ProbeRun, WebhookEndpoint } from '../store/state.js';

/** Probe runs kept per merchant (the oldest go first). */
export const MAX_PROBE_RUNS = 20;

/** A merchant's endpoint as it is when nothing is stored for it: enabled, healthy. */
function fresh(merchantId: string): WebhookEndpoint {
  return { merchant_id: merchantId, state: 'enabled', failing_since: null, disabled_at: null, probes: [] };
}

/**
 * Each merchant's webhook endpoint, kept in the state (`webhook_endpoints`, one record per
 * merchant, written through the change log and cut with the merchant's slice): whether it is
 * enabled, since when its genuine attempts fail, when it was disabled, and its last probe runs.
 * A merchant without a record has an enabled, healthy endpoint.
 */
export class Endpoints {
  constructor(private readonly repo: Repo) {}

  private get all(): Record<string, WebhookEndpoint> {
    return (this.repo.state.webhook_endpoints ??= {});
  }

  /** The merchant's endpoint (a fresh one, not stored, when it has none). */
  of(merchantId: string): WebhookEndpoint {
    return own(this.all, merchantId) ?? fresh(merchantId);
  }

  disabled(merchantId: string): boolean {
    return own(this.all, merchantId)?.state === 'disabled';
  }

  /** Changes the merchant's endpoint record (stored first if it had none), told to the change log. */
  private change(merchantId: string, fn: (e: WebhookEndpoint) => void): WebhookEndpoint {
    const e = own(this.all, merchantId) ?? fresh(merchantId);
    fn(e);
    this.repo.put('webhook_endpoints', merchantId, e);
    return e;
  }

  /** A genuine attempt was acknowledged: the endpoint is healthy again. */
  succeeded(merchantId: string): void {
    if (this.of(merchantId).failing_since !== null) this.change(merchantId, (e) => (e.failing_since = null));
  }

  /**
   * A genuine attempt at `at` failed: the endpoint fails since its first such failure after the
   * last success; when that is `disableAfterMs` or more ago, it is disabled. True when this
   * failure disabled it.
   */
  failed(merchantId: string, at: number, disableAfterMs: number): boolean {
    const e = this.of(merchantId);
    if (e.state === 'disabled') return false;
    const since = e.failing_since ?? at;
    const disable = at - since >= disableAfterMs;
    if (e.failing_since === null || disable) {
      this.change(merchantId, (x) => {
        x.failing_since = since;
        if (disable) {
          x.state = 'disabled';
          x.disabled_at = at;
        }
      });
    }
    return disable;
  }

  /** Enabled again (a replay): healthy until a genuine attempt fails. */
  enable(merchantId: string): void {
    const e = this.of(merchantId);
    if (e.state === 'enabled' && e.failing_since === null && e.disabled_at === null) return;
    this.change(merchantId, (x) => {
      x.state = 'enabled';
      x.failing_since = null;
      x.disabled_at = null;
    });
  }

  /** Keeps a probe run (the last MAX_PROBE_RUNS). */
  addProbe(merchantId: string, run: ProbeRun): void {
    this.change(merchantId, (e) => {
      e.probes.push(run);
      if (e.probes.length > MAX_PROBE_RUNS) e.probes.splice(0, e.probes.length - MAX_PROBE_RUNS);
    });
  }
}
