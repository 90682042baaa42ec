// Steering the sandbox from the test suite through its control API (docs/control-api.md):
// registering our receiver, running the receiver probe, reading what the sandbox holds.

async function control(sb, method, path, body) {
  const res = await fetch(`${sb.controlUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Registers (or, with null, clears) the merchant's webhook URL; optionally its body version. */
export function setWebhook(sb, url, version) {
  const body = { webhook_url: url };
  if (version !== undefined) body.webhook_version = version;
  return control(sb, 'PATCH', `/merchants/${sb.merchant.merchantId}`, body);
}

/** Runs the receiver probe against the merchant's webhook_url: { ok, checks }. */
export function probe(sb) {
  return control(sb, 'POST', `/merchants/${sb.merchant.merchantId}/webhooks/probe`, {});
}

/** The merchant's payouts as the sandbox holds them (newest first). */
export async function payouts(sb) {
  return (await control(sb, 'GET', `/merchants/${sb.merchant.merchantId}/payouts?limit=200`)).payouts;
}

/** Waits (real time, a few ms at a time) until the sandbox holds a payout of this client_ref_id. */
export async function untilPayoutExists(sb, clientRefId, tries = 1000) {
  for (let i = 0; i < tries; i++) {
    if ((await payouts(sb)).some((p) => p.client_ref_id === clientRefId)) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`no payout ${clientRefId} after ${tries} looks`);
}

export function activateBeneficiary(sb, beneficiaryId) {
  return control(sb, 'POST', `/beneficiaries/${beneficiaryId}/status`, { status: 'Active' });
}

/** The deliveries of one payout (newest first), as the outbox holds them. */
export async function deliveriesOf(sb, refId) {
  return (await control(sb, 'GET', `/webhooks?ref_id=${encodeURIComponent(refId)}`)).deliveries;
}

/** Sends a delivery again now (POST /__sandbox/webhooks/{id}/redeliver). */
export function redeliver(sb, deliveryId) {
  return control(sb, 'POST', `/webhooks/${deliveryId}/redeliver`);
}
