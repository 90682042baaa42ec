// A story (#/m/<story merchant>/story/<demo>[/<moment>]): a demo run for a merchant of its own on
// a manual clock, told step by step. A large status; the narration of the scenario's `story`
// beside the moments reached (each with a link that opens the story at it); the sequence of
// merchant ↔ sandbox ↔ webhook receiver under it. Step moves the story's clock to its next event
// (and checks the status, as a careful client would); Play steps with a pause between; Replay
// runs it again for a fresh merchant.
import { html, useEffect, useRef, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { Waiting, When } from '../format.js';
import { href } from '../route.js';
import { checkStatus, inFlight, makesPayout, runStory } from './demos.js';
import { Sequence, tracePath } from './sequence.js';

const FINAL = new Set(['Success', 'Failed']);
/** In the order they can happen; the scenario's `story.steps` says what to tell at each. */
const MOMENTS = ['answer', 'NEW', 'Pending', 'not_found', 'Unknown', 'Success', 'Failed', 'reversed', 'webhook', 'end'];
const MOMENT_NAMES = {
  answer: 'The answer',
  NEW: 'NEW',
  Pending: 'Pending',
  not_found: 'Not found (yet)',
  Unknown: 'Unknown',
  Success: 'Success',
  Failed: 'Failed',
  reversed: 'Reversed',
  webhook: 'The webhook',
  end: 'The end',
};
/** Between two steps of Play: `?pause=<ms>` on the page's URL changes it (0 for tests and rehearsals). */
const PAUSE_MS = Number(new URLSearchParams(location.search).get('pause') ?? 1200);

export const prefetch = (client, route) => {
  client.prefetch('/demos');
  client.prefetch(tracePath(route.tenant));
};

const initializeOf = (trace) => trace.requests.find((r) => r.method === 'POST' && /\/payment\/transfer$/.test(r.url.split('?')[0]));
const clientRefIdOf = (trace, merchantId) => {
  try {
    return JSON.parse(initializeOf(trace)?.request.body ?? 'null')?.client_ref_id ?? inFlight.get(merchantId)?.clientRefId ?? null;
  } catch {
    return inFlight.get(merchantId)?.clientRefId ?? null;
  }
};

/** Each moment the trace shows, with when it came. */
function reachedOf(trace, demo, ended) {
  const reached = new Map();
  const init = initializeOf(trace);
  if (init) reached.set('answer', init.at);
  const payout = trace.payouts[0];
  for (const s of payout?.timeline.taken ?? []) if (!reached.has(s.status)) reached.set(s.status, s.at);
  if (payout?.reversed) reached.set('reversed', payout.timeline.taken.at(-1)?.at);
  const notFound = trace.requests.find((r) => r.method === 'GET' && /Unable to find transaction/.test(r.error?.message ?? r.response?.body ?? ''));
  if (notFound) reached.set('not_found', notFound.at);
  const attempt = trace.deliveries[0]?.attempts[0];
  if (attempt) reached.set('webhook', attempt.at);
  const settled = init && (!makesPayout(demo) || (payout && FINAL.has(payout.transaction.status) && payout.timeline.scheduled.length === 0));
  if (ended || settled) reached.set('end', trace.requests.at(-1)?.at ?? init?.at);
  return reached;
}

/** The big status: the payout's, or what the initialize was answered when it made none. */
function BigStatus({ trace, demo }) {
  const payout = trace.payouts[0];
  const init = initializeOf(trace);
  let text;
  let kind;
  if (payout) {
    text = payout.reversed && payout.transaction.status === 'Failed' ? 'Reversed' : payout.transaction.status;
    kind = text;
  } else if (init) {
    const code = init.error?.code ?? (init.status === null ? 'no answer' : `HTTP ${init.status}`);
    text = demo.outcome.kind === 'reject' ? `Refused: ${code}` : `HTTP ${init.status ?? '—'}: nothing made`;
    kind = 'Failed';
  } else {
    text = 'Waiting for the answer';
    kind = 'Pending';
  }
  return html`<p class=${`big-status status status-${kind}`} data-testid="story-status" aria-live="polite"><span class="visually-hidden">Status: </span>${text}</p>`;
}

/**
 * One step of the story: the story clock to its next scheduled event, or past a held answer;
 * with nothing scheduled, a status check when only polling moves it; else the end. After a move,
 * the status check a careful client makes.
 */
async function step(client, merchant, trace, demo) {
  const id = merchant.merchant_id;
  const clientRefId = clientRefIdOf(trace, id);
  const check = async () => {
    if (makesPayout(demo) && clientRefId && !inFlight.has(id)) await checkStatus(merchant, clientRefId);
  };
  try {
    await client.post(`/merchants/${encodeURIComponent(id)}/clock/next`);
    await check();
    return 'moved';
  } catch (err) {
    if (err.status !== 409) throw err;
  }
  const held = inFlight.get(id);
  if (held) {
    await client.post(`/merchants/${encodeURIComponent(id)}/clock/advance`, { by: `${demo.outcome.fault?.delay_ms ?? 35_000}ms` });
    await held.answered;
    inFlight.delete(id);
    await check();
    return 'moved';
  }
  const payout = trace.payouts[0];
  const pollDriven = demo.outcome.steps?.some((s) => s.after_polls !== undefined);
  if (payout && !FINAL.has(payout.transaction.status) && pollDriven) {
    await check();
    return 'polled';
  }
  return 'end';
}

function Narration({ demo, reached, current, route }) {
  const steps = demo.story.steps ?? {};
  const told = MOMENTS.filter((m) => steps[m] || reached.has(m));
  return html`<ol class="narration" aria-label="What happens, and what your code should do">
    ${told.map(
      (
        m,
      ) => html`<li id=${`moment-${m}`} class=${`${reached.has(m) ? 'reached' : 'ahead'}${m === current ? ' current' : ''}${route.at === m ? ' target' : ''}`} data-testid=${`moment-${m}`} data-reached=${reached.has(m) ? 'yes' : 'no'}>
        <strong>${MOMENT_NAMES[m]}</strong>${reached.has(m) && reached.get(m) ? html` <span class="muted">· <${When} at=${reached.get(m)} /></span>` : ''}
        ${reached.has(m) && html` <a class="link moment-link" href=${href({ ...route, at: m })} title="A link that opens the story at this moment">link</a>`}
        ${steps[m] ? html`<p>${reached.has(m) ? steps[m] : html`<span class="muted">${steps[m]}</span>`}</p>` : ''}
      </li>`,
    )}
  </ol>`;
}

export function View({ client, route, go, merchant, version, refresh, onError }) {
  const demos = useGet(client, '/demos');
  const answer = useGet(client, tracePath(route.tenant), [version]);
  const clock = useGet(client, '/clock', [version]);
  // The story's last step done: the last request it had made by then (null: none), so that the
  // story is told as ended once the sequence shown has that request, not before (its trace is
  // fetched again after each step, a little later).
  const [ended, setEnded] = useState(undefined);
  const [playing, setPlaying] = useState(false);
  const [busy, setBusy] = useState(false);
  const stop = useRef(false);
  const latest = useRef(null);
  latest.current = answer.data;
  const demo = demos.data?.demos.find((d) => d.name === route.ref);
  useEffect(() => {
    if (route.at) document.getElementById(`moment-${route.at}`)?.scrollIntoView({ block: 'center' });
  }, [route.at, answer.data !== undefined]);
  useEffect(
    () => () => {
      stop.current = true;
    },
    [],
  );
  if (!demos.data || !answer.data) return html`<${Waiting} what="the story" error=${demos.error ?? answer.error} />`;
  if (!demo)
    return html`<p class="error card" role="alert">The scenario has no demo ${route.ref}: <a class="link" href=${href({ tenant: route.tenant, tab: 'demo' })}>the stories</a>.</p>`;
  const trace = answer.data;
  const reached = reachedOf(trace, demo, ended !== undefined && (ended === null || trace.requests.some((r) => r.request_id === ended)));
  const current = [...MOMENTS].reverse().find((m) => reached.has(m));
  const done = reached.has('end');
  // The freshest trace after a step: the change stream refreshes it too, a little later.
  const once = async () => {
    const fresh = (await client.get(tracePath(route.tenant)).catch(() => null)) ?? latest.current;
    const result = await step(client, merchant, fresh, demo);
    if (result === 'end') {
      const after = await client.get(tracePath(route.tenant)).catch(() => null);
      setEnded(after?.requests.at(-1)?.request_id ?? null);
    }
    refresh();
    return result;
  };
  const stepOnce = () => {
    setBusy(true);
    once()
      .catch(onError)
      .finally(() => setBusy(false));
  };
  const play = async () => {
    stop.current = false;
    setPlaying(true);
    try {
      for (;;) {
        if ((await once()) === 'end' || stop.current) break;
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
        if (stop.current) break;
      }
    } catch (err) {
      onError(err);
    } finally {
      setPlaying(false);
    }
  };
  const replay = async () => {
    stop.current = true;
    const { merchant: fresh } = await runStory(client, demo, merchant);
    go({ tenant: fresh.merchant_id, tab: 'story', ref: demo.name });
  };
  const init = initializeOf(trace);
  const rejected = init && !trace.payouts[0] && init.response?.body;
  return html`<section class="story" aria-label=${`Story: ${demo.story.title}`}>
    <p><a class="link" href=${href({ tenant: route.tenant, tab: 'demo' })}>← Stories</a></p>
    <h2 data-testid="story-title">${demo.story.title}</h2>
    ${demo.story.summary && html`<p class="story-summary">${demo.story.summary}</p>`}
    <p class="muted" data-testid="demo-clock">${merchant.name} runs on a <strong>demo clock of its own</strong> (manual), now <${When} at=${merchant.clock?.now ?? trace.merchant.clock?.now} />:
      the sandbox clock (${clock.data?.mode ?? '…'}) and every other merchant are untouched.</p>
    <${BigStatus} trace=${trace} demo=${demo} />
    <div class="bar story-controls">
      <button onClick=${stepOnce} disabled=${busy || playing || done} data-testid="story-step">Step</button>
      ${
        playing
          ? html`<button onClick=${() => {
              stop.current = true;
            }} data-testid="story-pause">Pause</button>`
          : html`<button onClick=${() => play()} disabled=${busy || done} data-testid="story-play">Play</button>`
      }
      <button onClick=${() => replay().catch(onError)} data-testid="story-replay">Replay</button>
      ${done && html`<span class="tag" data-testid="story-ended" role="status">The story has ended</span>`}
    </div>
    <div class="story-body">
      <div class="story-told">
      <${Narration} demo=${demo} reached=${reached} current=${current} route=${route} />
      ${
        rejected &&
        html`<div class="card"><h3>The answer your code got: HTTP ${init.status}</h3><pre class="envelope" data-testid="story-envelope">${(() => {
          try {
            return JSON.stringify(JSON.parse(init.response.body), null, 2);
          } catch {
            return init.response.body;
          }
        })()}</pre></div>`
      }
      </div>
      <div class="story-sequence"><h3>Sequence</h3>
        <${Sequence} trace=${trace} route=${route} headers=${merchant.headers} /></div>
    </div>
  </section>`;
}
