import type { Request } from 'express';
import type { Admin } from '../../admin/admin.js';
import { ListenQuery, ListenReportBody } from '../../admin/listen-admin.js';
import { LISTENER_HEADER } from '../../contract/envelopes.js';
import { RequestError } from '../../errors.js';
import type { RelayedAttempt } from '../../webhooks/listeners.js';
import type { Route } from './route.js';

const merchantIdOf = (req: Request) => String(req.params.merchant_id);

/** A comment on the stream this often, so proxies keep it and a listener gone without a word is noticed. */
const KEEP_ALIVE_MS = 15_000;

/**
 * GET …/webhooks/listen: the listener's event stream (server-sent events). First `attached` (the
 * listener, the merchant's webhook secret and URL, the time-out), then one `delivery` per attempt
 * (RelayedAttempt), until the connection closes: that detaches the listener. A refusal (unknown
 * merchant, a listener already attached) is answered as any control route's, before the stream.
 * The stream is the answer: the handler never settles, so the router writes nothing after it.
 */
async function listenStream(req: Request, { listen }: Admin): Promise<never> {
  const res = req.res;
  if (!res) throw new Error('no response to stream on');
  if (!req.get(LISTENER_HEADER)) {
    throw new RequestError(
      400,
      `Attaching a listener needs the header ${LISTENER_HEADER} (payout-sandbox listen sends it): this GET changes where the merchant's webhooks go, and a web page cannot send a header of its own to another site.`,
    );
  }
  // Nothing is written once the stream has ended (the sandbox stopping): a write after the end is an error event.
  const write = (text: string) => {
    if (!res.writableEnded && !res.destroyed) res.write(text);
  };
  const send = (event: string, data: unknown) => write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const { listener, attached } = await listen.attach(
    merchantIdOf(req),
    req.query,
    { delivery: (a: RelayedAttempt) => send('delivery', a), end: () => (res.writableEnded ? undefined : res.end()) },
    req.socket.remoteAddress ?? null,
  );
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  send('attached', attached);
  const beat = setInterval(() => write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  beat.unref();
  const detach = () => {
    clearInterval(beat);
    listen.detach(listener);
  };
  res.once('close', detach);
  // Gone before it was attached: detached at once.
  if (res.destroyed || req.socket.destroyed) detach();
  return new Promise<never>(() => undefined);
}

/** `payout-sandbox listen` (docs/companion.md): the listener's stream, its reports of what its receiver answered, who is listening. */
export function listenRoutes(admin: Admin): Route[] {
  const { listen } = admin;
  return [
    [
      'get',
      '/merchants/:merchant_id/webhooks/listen',
      {
        summary:
          "Attaches a listener as the merchant's webhook receiver (server-sent events): `attached`, then a `delivery` per attempt (token, method, headers, raw body, timeout_ms) whatever its webhook_url, until the connection closes. 409 while another is attached.",
        query: ListenQuery,
      },
      (req) => listenStream(req, admin),
    ],
    [
      'post',
      '/merchants/:merchant_id/webhooks/listen/:token',
      { summary: "A listener's report of what its receiver answered to a relayed attempt: recorded as the attempt's result.", body: ListenReportBody },
      (req) => listen.report(merchantIdOf(req), String(req.params.token), req.body ?? {}),
    ],
    ['get', '/webhooks/listeners', { summary: 'The listeners attached now: merchant, forward_to, since when, attempts relayed.' }, () => listen.list()],
  ];
}
