import type { Request } from 'express';
import type { Admin } from '../../admin/admin.js';
import { ProbeBody, ReplayBody, RotateSecretBody } from '../../admin/webhook-inputs.js';
import type { Route } from './route.js';

const merchantIdOf = (req: Request) => String(req.params.merchant_id);

/** A merchant's webhook endpoint: its secret's rotation, its state, the replay of what it missed, the receiver probe. */
export function webhookRoutes({ webhooks }: Admin): Route[] {
  return [
    [
      'post',
      '/merchants/:merchant_id/webhook-secret/rotate',
      { summary: 'A new webhook secret; the previous one still signs during the grace (default 24h, at most 30d).', body: RotateSecretBody },
      (req) => webhooks.rotateSecret(merchantIdOf(req), req.body ?? {}),
    ],
    [
      'get',
      '/merchants/:merchant_id/webhooks/endpoint',
      { summary: "The merchant's webhook endpoint: url, state (enabled or disabled), failing_since, disabled_at." },
      (req) => webhooks.endpoint(merchantIdOf(req)),
    ],
    [
      'post',
      '/merchants/:merchant_id/webhooks/replay',
      { summary: 'Sends every never-acknowledged delivery (within from..to), oldest first, and enables the endpoint again.', body: ReplayBody },
      (req) => webhooks.replay(merchantIdOf(req), req.body ?? {}),
    ],
    [
      'post',
      '/merchants/:merchant_id/webhooks/probe',
      { summary: "Probes the merchant's receiver (or url) with a fixed battery of deliveries; answers each check.", body: ProbeBody },
      (req) => webhooks.probe(merchantIdOf(req), req.body ?? {}),
    ],
    [
      'get',
      '/merchants/:merchant_id/webhooks/probes',
      { summary: "The merchant's last probe runs (at most 20), newest first." },
      (req) => webhooks.probes(merchantIdOf(req)),
    ],
  ];
}
