import { performance } from 'node:perf_hooks';
import { Option } from 'commander';
import { LISTENER_HEADER } from '../contract/envelopes.js';
import { clientOf, EXIT, reason, receiverUrl, runVerb, type SandboxClient, serverSentEvents, VerbError, verbCommand } from './http.js';
import { merchantOf } from './outcomes.js';

/**
 * `payout-sandbox listen --merchant ID --forward-to URL [--json]`: attaches to a running sandbox as
 * the merchant's webhook receiver (its event stream, `GET /__sandbox/merchants/{id}/webhooks/listen`),
 * posts each attempt it is sent to the local URL byte for byte (same headers, same signature), and
 * reports the local answer back (`POST …/webhooks/listen/{token}`): status and latency, or the
 * connection error. Ctrl-C (or this process dying) closes the stream, which detaches it: the
 * merchant's deliveries go to its own webhook_url again. `--print-secret` prints the merchant's
 * webhook secret and exits.
 */

interface Attached {
  listener_id: string;
  merchant_id: string;
  forward_to: string | null;
  webhook_url: string | null;
  webhook_secret: string;
  timeout_ms: number;
}

interface Attempt {
  token: string;
  delivery_id: string;
  attempt: number;
  method: string;
  headers: Record<string, string>;
  body: string;
  timeout_ms: number;
}

/** What the local receiver answered, recorded as the sandbox records a direct attempt (the error in a word: ECONNREFUSED, a time-out …). */
async function forward(url: string, a: Attempt): Promise<{ status: number | null; error: string | null; latency_ms: number }> {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${a.timeout_ms} ms`)), a.timeout_ms);
  let status: number | null = null;
  let error: string | null = null;
  try {
    const res = await fetch(url, { method: a.method, headers: a.headers, body: a.body, redirect: 'manual', signal: controller.signal });
    status = res.status;
    await res.body?.cancel().catch(() => undefined);
  } catch (err) {
    error = controller.signal.aborted ? String((controller.signal.reason as Error).message) : reason(err);
  } finally {
    clearTimeout(timer);
  }
  return { status, error, latency_ms: Math.round(performance.now() - started) };
}

async function relay(client: SandboxClient, merchantId: string, url: string, a: Attempt, json: boolean): Promise<void> {
  const r = await forward(url, a);
  const report = r.status !== null ? { status: r.status, latency_ms: r.latency_ms } : { error: r.error, latency_ms: r.latency_ms };
  let reported = true;
  try {
    await client.control('POST', `/merchants/${encodeURIComponent(merchantId)}/webhooks/listen/${a.token}`, report);
  } catch (err) {
    reported = false;
    process.stderr.write(`payout-sandbox listen: could not report ${a.delivery_id} attempt ${a.attempt}: ${(err as Error).message}\n`);
  }
  const line = json
    ? JSON.stringify({ event: 'delivery', delivery_id: a.delivery_id, attempt: a.attempt, ...r, reported })
    : `${new Date().toISOString()}  ${a.delivery_id} attempt ${a.attempt}  --> ${url}  ${r.status ?? r.error}  ${r.latency_ms} ms`;
  process.stdout.write(`${line}\n`);
}

export function main(argv: string[]): Promise<never> {
  const program = verbCommand('listen', "Attaches to a running sandbox as a merchant's webhook receiver and forwards each delivery to a local URL.")
    .addOption(new Option('--merchant <id>', 'the merchant whose webhooks to receive').env('SANDBOX_MERCHANT_ID'))
    .addOption(new Option('--forward-to <url>', 'the local receiver each delivery is posted to').argParser(receiverUrl))
    .option('--print-secret', "print the merchant's webhook secret and exit")
    .option('--json', 'one JSON object a line (attached, then one per delivery)');
  return runVerb(argv, 1, program, async (o) => {
    const client = clientOf(o as { url: string; adminToken?: string });
    const merchantId = o.merchant as string | undefined;
    if (merchantId === undefined) throw new VerbError('name the merchant: --merchant ID (or SANDBOX_MERCHANT_ID).', EXIT.usage);
    if (o.printSecret) {
      process.stdout.write(`${(await merchantOf(client, merchantId)).webhook_secret}\n`);
      return 0;
    }
    const url = o.forwardTo as string | undefined;
    if (url === undefined) throw new VerbError('name the local receiver: --forward-to URL (e.g. http://127.0.0.1:3000/hooks).', EXIT.usage);
    const json = o.json === true;
    const controller = new AbortController();
    let stopping = false;
    const stop = () => {
      stopping = true;
      controller.abort();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const res = await client.stream(`/merchants/${encodeURIComponent(merchantId)}/webhooks/listen?forward_to=${encodeURIComponent(url)}`, controller.signal, {
      [LISTENER_HEADER]: 'payout-sandbox listen',
    });
    try {
      for await (const { event, data } of serverSentEvents(res)) {
        if (event === 'attached') {
          const a = JSON.parse(data) as Attached;
          process.stdout.write(
            json
              ? `${JSON.stringify({ event: 'attached', ...a })}\n`
              : `Ready: merchant ${a.merchant_id}'s webhooks are forwarded to ${url} (listener ${a.listener_id}; its own URL, ${a.webhook_url ?? 'none'}, gets them again when this stops). Webhook secret: ${a.webhook_secret}. Ctrl-C to stop.\n`,
          );
        } else if (event === 'delivery') {
          void relay(client, merchantId, url, JSON.parse(data) as Attempt, json);
        }
      }
    } catch (err) {
      if (!stopping) throw new VerbError(`lost the sandbox's stream at ${client.url} (${reason(err)}).`);
    }
    if (stopping) {
      process.stderr.write(`payout-sandbox listen: detached; merchant ${merchantId}'s webhooks go to its own URL again\n`);
      return 0;
    }
    throw new VerbError(`the sandbox at ${client.url} ended the stream (it stopped?): merchant ${merchantId}'s webhooks are no longer forwarded.`);
  });
}
