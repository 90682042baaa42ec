// Memory (issue 37, part 3): the sandbox CLI's resident memory per merchant, per 10,000 payouts and
// under a sustained load, memory store and file store. Run: npm run bench:memory (builds first), or
// node bench/memory.js [--payouts 50000] [--merchants 1000] [--requests N] [--stores memory,file]
// [--concurrency 20] [--settle 1000] [--serial] [--json FILE].
//
// Each store gets its own CLI child process (`--clock manual --no-rate-limits --log-level silent`,
// every other bound at its default), started with `--expose-gc --import ./bench/memory.js`: this
// file, preloaded in the child, only answers "measure" over an IPC channel with
// process.memoryUsage() after a full GC. Every measurement is taken --settle ms after the step: VmRSS
// from /proc/<pid>/status (settled, before any forced GC: what `ps` shows), then RSS and V8 heap
// used right after the forced GC (far less noisy: the slopes are read from them).
//  1. Merchants: 20 warm-up merchants, baseline, then --merchants (1,000) through
//     POST /__sandbox/merchants (--max-merchants raised): per merchant = delta / count.
//  2. Payouts: one merchant with a webhook_url (a receiver child process answering 200), V2
//     initializes in chunks of 1,000, each followed by a clock advance (payouts settle, webhooks
//     go out), measured at a fifth, two fifths and all of --payouts (10k, 20k, 50k) after the
//     webhooks settle: per 10,000 = least-squares slope over those three points.
//  3. Long-running: the same sandbox goes on for about --requests (default 2 × --payouts) in 11
//     windows of a tenth each (a multiple of 1,025), a clock advance and a webhook settle every
//     1,000: 3 mixed (10 % initializes, 50 % status checks of one of the newest 2,000 payouts, 40 %
//     balance checks), 3 of reads only (60/40), 1 of first status checks of old payouts (60/40), 1 of
//     100 new merchants' balance checks (then 1 of reads, which pushes them out of the journal), 2
//     half windows of redeliveries only. Growth is read over the windows that follow one of their
//     own kind, and compared with the payouts they stored. The file store is then stopped
//     (SIGTERM: a clean stop writes the data file whole) and the data file counted: deliveries,
//     attempts, the review's fact pages, due items.
// The two stores run side by side (each its own sandbox; --serial: one after the other). Every
// request goes to 127.0.0.1, 20 in flight on a keep-alive agent; every loop is bounded.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs as parseCli } from 'node:util';

/**
 * The bounds that keep a long-running sandbox flat, where they are in src/, each default read from
 * the built sandbox (dist/) rather than copied here.
 */
async function bounds() {
  const [{ DEFAULTS: d }, { BODY_LIMITS }, { FACTS_PER_MERCHANT }, { MAX_PROBE_RUNS }, { MAX_EVIDENCE }] = await Promise.all([
    import('../dist/sandbox/config.js'),
    import('../dist/observe/journal.js'),
    import('../dist/observe/review/facts.js'),
    import('../dist/webhooks/endpoints.js'),
    import('../dist/observe/review/report.js'),
  ]);
  const size = (bytes) => (bytes >= 2 ** 20 ? `${bytes / 2 ** 20} MiB` : `${bytes / 1024} KiB`);
  return [
    [
      '--journal-size',
      String(d.journalSize),
      'src/sandbox/config.ts DEFAULTS.journalSize; src/observe/journal.ts Journal (Ring)',
      'emulated-API requests kept, and as many control-API ones apart',
    ],
    [
      'BODY_LIMITS',
      `${size(BODY_LIMITS.perEntry)} / ${size(BODY_LIMITS.perMerchant)}`,
      'src/observe/journal.ts BODY_LIMITS',
      'journal bodies: per body, per merchant (oldest bodies dropped)',
    ],
    [
      'journal notes',
      `${d.journalSize} / ${4 * d.journalSize}`,
      'src/observe/journal.ts noteClockMove, noteStatusChange',
      'clock advances kept (journal size), status-change times (4 × journal size)',
    ],
    [
      'FACTS_PER_MERCHANT',
      String(FACTS_PER_MERCHANT),
      'src/observe/review/facts.ts FactPages.trim',
      'review facts per merchant (pages of 50; the oldest page goes); repeated reads counted on one fact',
    ],
    [
      '--max-deliveries-per-merchant',
      String(d.maxDeliveriesPerMerchant),
      'src/sandbox/config.ts; src/webhooks/delivery-index.ts retain',
      'webhook deliveries kept per merchant (oldest delivered/failed go; pending never)',
    ],
    ['MAX_PROBE_RUNS', String(MAX_PROBE_RUNS), 'src/webhooks/endpoints.ts', 'receiver probe runs kept per merchant'],
    ['MAX_EVIDENCE', String(MAX_EVIDENCE), 'src/observe/review/report.ts', 'evidence ids listed per finding (a report, not state)'],
    ['rate-limit windows', '10000 keys, then swept', 'src/http/ratelimit.ts ClockStore.increment', 'rate-limit counters (off here: --no-rate-limits)'],
    ['--max-records-per-merchant', String(d.maxRecordsPerMerchant), 'src/sandbox/config.ts', 'payouts, beneficiaries, verifications of one merchant (each)'],
    ['--max-records', String(d.maxRecords), 'src/sandbox/config.ts', 'payouts, beneficiaries, verifications in the sandbox: the stored records themselves'],
    ['--max-merchants', String(d.maxMerchants), 'src/sandbox/config.ts', 'merchants created through the control API'],
    ['--max-snapshots / --max-snapshot-bytes', `${d.maxSnapshots} / ${size(d.maxSnapshotBytes)}`, 'src/sandbox/config.ts', 'snapshots (none taken here)'],
  ];
}

async function main() {
  // Imported here, not at the top: the sandbox child preloads this file and must not load autocannon.
  const { firstLine, initializeBody, ROOT_DIR, machine: hostAndTree, machineLine } = await import('./lib.js');
  const started = performance.now();
  const opts = parseArgs(process.argv.slice(2));
  // Idle sockets closed after 2 s, well before the sandbox's keep-alive time-out (5 s): a request
  // never goes out on a connection the server is closing (ECONNRESET).
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency, timeout: 2000 });
  const progress = (line) => process.stderr.write(`${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s  ${line}\n`);
  const tmp = mkdtempSync(join(os.tmpdir(), 'payout-sandbox-memory-'));

  const machine = { ...hostAndTree(), line: '' };
  machine.line = machineLine(machine);
  const loadAtStart = os.loadavg();
  const receiver = await startReceiver(firstLine);
  const run = async (store) => {
    const data = store === 'memory' ? 'memory' : join(tmp, `${store}-%s`, 'db.json');
    const merchants = await merchantsPart(store, data.replace('%s', 'merchants'));
    return {
      merchants,
      ...(await payoutsAndLongRun(store, data.replace('%s', 'payouts'), merchants)),
    };
  };
  // Every child this script starts, killed (by its pid) whatever ends the run: an error, Ctrl-C.
  const children = new Set([receiver.child]);
  const killAll = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  };
  process.on('exit', () => {
    killAll();
    rmSync(tmp, { recursive: true, force: true });
  });
  process.on('SIGINT', () => process.exit(130));
  const results = {};
  try {
    if (opts.serial) for (const store of opts.stores) results[store] = await run(store);
    else {
      const all = await Promise.all(opts.stores.map(run));
      for (const [i, store] of opts.stores.entries()) results[store] = all[i];
    }
  } finally {
    killAll();
    agent.destroy();
  }
  const report = {
    machine,
    date: new Date().toISOString(),
    load_average: { start: loadAtStart, end: os.loadavg() },
    command: `node bench/memory.js ${process.argv.slice(2).join(' ')}`.trim(),
    sandbox_command: `node --expose-gc --import ./bench/memory.js bin/payout-sandbox.js ${baseArgs('memory|<tmp>/db.json').join(' ')}`,
    settings: { ...opts, json: undefined, measure: 'settle; VmRSS; then a full GC in the child: RSS and heap used' },
    stores: results,
    grows: growsOf(results),
    bounds: (await bounds()).map(([name, fallback, where, what]) => ({ name, default: fallback, where, what })),
    elapsed_s: Math.round((performance.now() - started) / 100) / 10,
  };
  print(report);
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`);

  // ---- the parts ----

  /** 1. A sandbox with no merchant of ours, 20 warm-up merchants, baseline, then opts.merchants more: per merchant. */
  async function merchantsPart(store, data) {
    const sb = await startSandbox(data, ['--max-merchants', String(opts.merchants + 100)]);
    try {
      const make = () => sb.call('POST', '/__sandbox/merchants', { body: {}, expect: 201 });
      await pool(20, make);
      const points = [{ merchants: 20, ...(await sb.measure()) }];
      progress(`${store}: merchants baseline ${mib(points[0].rss_settled)} MiB`);
      for (const target of [Math.floor(opts.merchants / 2), opts.merchants]) {
        await pool(target - (points.at(-1).merchants - 20), make);
        points.push({ merchants: 20 + target, ...(await sb.measure()) });
        progress(`${store}: ${target} merchants ${mib(points.at(-1).rss_settled)} MiB`);
      }
      const [first, , last] = points;
      const per = (k) => (last[k] - first[k]) / opts.merchants;
      return { created: opts.merchants, points, per_merchant: { rss_settled: per('rss_settled'), rss_gc: per('rss_gc'), heap_gc: per('heap_gc') } };
    } finally {
      await sb.stop();
    }
  }

  /** 2 and 3: one merchant's payouts (slope per 10,000), then the long run on the same sandbox. */
  async function payoutsAndLongRun(store, data, merchantsResult) {
    const sb = await startSandbox(data, []);
    const file = data === 'memory' ? null : data;
    let atStop = null;
    try {
      const m = await sb.call('POST', '/__sandbox/merchants', { body: { balance: 1e12, per_transaction_limit: 1e6, webhook_url: receiver.url }, expect: 201 });
      const headers = { ...m.headers, 'content-type': 'application/json' };
      const refs = [];
      const initialize = async () =>
        refs.push((await sb.call('POST', '/api/v2/public/payment/transfer', { headers, raw: initializeBody(m.account_no) })).data.ref_id);
      // A polling client: the status of one of the newest payouts (2,000; a fifth of fewer).
      const statusOf = (ref) => sb.call('GET', `/api/v1/public/payment/transfer/status?ref_id=${ref}`, { headers });
      const recent = () => Math.max(1, Math.min(2000, Math.floor(refs.length / 5)));
      const status = () => statusOf(refs[refs.length - 1 - Math.floor(Math.random() * recent())]);
      const balance = () => sb.call('GET', `/api/v1/public/balance/check?account_no=${m.account_no}`, { headers });
      const advance = () => sb.call('POST', '/__sandbox/clock/advance', { body: { by: '1m' } });
      const settle = async () => {
        await advance();
        await sb.call('POST', '/__sandbox/webhooks/settle');
      };
      const measure = async (extra) => ({ payouts: refs.length, ...extra, ...(await sb.measure()), ...filesOf(file) });

      // 2. Payouts: a warm-up (200; a tenth of fewer), then up to a fifth, two fifths and all of opts.payouts.
      await pool(Math.min(200, Math.floor(opts.payouts / 10)), initialize);
      await settle();
      const steps = [{ ...(await measure()), step: 'baseline' }];
      progress(`${store}: payouts baseline (${refs.length}) ${mib(steps[0].rss_settled)} MiB`);
      for (const target of [Math.round(opts.payouts / 5), Math.round((2 * opts.payouts) / 5), opts.payouts]) {
        // Each chunk's clock advance (webhooks go out) runs beside the next chunk's initializes.
        let advancing = Promise.resolve();
        while (refs.length < target) {
          await pool(Math.min(1000, target - refs.length), initialize);
          await advancing;
          advancing = advance();
        }
        await advancing;
        await settle();
        steps.push({ ...(await measure()), step: `${target}` });
        progress(`${store}: ${target} payouts ${mib(steps.at(-1).rss_settled)} MiB, heap ${mib(steps.at(-1).heap_gc)} MiB`);
      }
      const perTen = (k) => slope(steps.slice(1).map((s) => [s.payouts, s[k]])) * 10_000;
      const firstStep = (k) => ((steps[1][k] - steps[0][k]) / (steps[1].payouts - steps[0].payouts)) * 10_000;
      const payouts = {
        steps,
        per_10000: { rss_settled: perTen('rss_settled'), rss_gc: perTen('rss_gc'), heap_gc: perTen('heap_gc') },
        first_step_per_10000: { rss_settled: firstStep('rss_settled'), rss_gc: firstStep('rss_gc'), heap_gc: firstStep('heap_gc') },
      };

      // 3. The long run: windows of mixed work, reads only, first status checks of old payouts,
      // merchants that make a few requests and go quiet (then reads push them out of the journal),
      // and redeliveries alone (control API, half a window each: no emulated request moves the
      // journal meanwhile).
      const kinds = ['mixed', 'mixed', 'mixed', 'reads', 'reads', 'reads', 'first-status', 'quiet-merchants', 'reads', 'redeliver', 'redeliver'];
      // Windows of a multiple of 1,025 emulated requests: the journal compacts a merchant's list of
      // entries every 1,025 of its requests (Journal.hold), so each window ends at the same point of
      // that saw-tooth (about 1 MiB high) and consecutive windows compare.
      const raw = Math.max(100, Math.round(opts.requests / 10));
      const perWindow = raw >= 2050 ? Math.round(raw / 1025) * 1025 : raw;
      const chunk = Math.min(1000, perWindow);
      const quietCount = Math.max(1, Math.min(100, Math.floor(perWindow / 10)));
      const quiet = [];
      const quietBalance = (i) => {
        const q = quiet[i % quiet.length];
        return sb.call('GET', `/api/v1/public/balance/check?account_no=${q.account_no}`, { headers: q.headers });
      };
      // Part 2 checked no status, and the windows only the newest: the oldest payouts were never checked.
      let oldest = 0;
      const firstStatus = () => statusOf(refs[oldest++]);
      const journal = () => journalCount(sb, m.merchant_id);
      const windows = [{ window: 0, kind: 'start', requests: 0, redeliveries: 0, first_status_checks: 0, ...(await measure(await journal())) }];
      let requests = 0;
      let redeliveries = 0;
      for (const [w, kind] of kinds.entries()) {
        const ids =
          kind === 'redeliver'
            ? (await sb.call('GET', `/__sandbox/webhooks?merchant_id=${m.merchant_id}&limit=1000`)).deliveries.map((d) => d.delivery_id)
            : [];
        if (kind === 'quiet-merchants')
          await pool(quietCount, async () => quiet.push(await sb.call('POST', '/__sandbox/merchants', { body: {}, expect: 201 })));
        const redeliver = async () => {
          redeliveries += 1;
          await sb.call('POST', `/__sandbox/webhooks/${ids[Math.floor(Math.random() * ids.length)]}/redeliver`, { expect: 202 });
        };
        const mix = {
          mixed: [
            [10, initialize],
            [50, status],
            [40, balance],
          ],
          reads: [
            [60, status],
            [40, balance],
          ],
          'first-status': [
            [60, firstStatus],
            [40, balance],
          ],
          'quiet-merchants': [[100, quietBalance]],
          redeliver: [[100, redeliver]],
        }[kind];
        const size = kind === 'redeliver' ? Math.round(perWindow / 2) : perWindow;
        for (let done = 0; done < size; done += chunk) {
          await pool(Math.min(chunk, size - done), (i) => pick(mix, i)(done + i));
          await settle();
        }
        requests += size;
        windows.push({ window: w + 1, kind, requests, redeliveries, first_status_checks: oldest, ...(await measure(await journal())) });
        const last = windows.at(-1);
        progress(
          `${store}: window ${w + 1} (${kind}) ${requests} requests, ${last.payouts} payouts, ${mib(last.rss_settled)} MiB, heap ${mib(last.heap_gc)} MiB`,
        );
      }
      const growth = growthOf(windows, payouts.per_10000.heap_gc);
      // The quiet merchants: what their window added, and what is left once the journal's ring has dropped all their entries.
      const at = (kind) => windows.findIndex((x) => x.kind === kind);
      const [before, during, after] = [windows[at('quiet-merchants') - 1], windows[at('quiet-merchants')], windows[at('quiet-merchants') + 1]];
      const ownCost = quietCount * merchantsResult.per_merchant.heap_gc;
      growth['quiet-merchants'] = {
        merchants: quietCount,
        requests: perWindow,
        heap_gc_window: during.heap_gc - before.heap_gc,
        heap_gc_after_next_window: after.heap_gc - before.heap_gc,
        merchants_own_heap: ownCost,
        journal_entries_of_other_merchants_after: after.journal_others,
        heap_left_beyond_merchants_per_request: (after.heap_gc - before.heap_gc - ownCost) / perWindow,
      };
      const longRun = { requests_per_window: perWindow, recent_payouts_polled: recent(), windows, growth };
      if (file) atStop = { ...(await sb.stopClean()), ...countDataFile(file) };
      return { payouts, long_run: longRun, ...(atStop ? { file_at_stop: atStop } : {}) };
    } finally {
      await sb.stop();
    }
  }

  // ---- the sandbox child, the receiver, the client ----

  async function startSandbox(data, extra) {
    const args = ['--expose-gc', '--import', './bench/memory.js', 'bin/payout-sandbox.js', ...baseArgs(data), ...extra];
    const child = spawn(process.execPath, args, {
      cwd: ROOT_DIR,
      env: { ...process.env, BENCH_MEMORY_PROBE: '1' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    children.add(child);
    let stderr = '';
    child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
    const base = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
        const found = /API base URL:\s+(\S+)/.exec(out);
        if (found) resolve(found[1]);
      });
      child.on('exit', (code) => reject(new Error(`the sandbox exited (${code}) before listening: ${stderr}`)));
    });
    const url = new URL(base);
    let stopped = false;
    const call = (method, path, { headers, body, raw, expect = 200 } = {}) =>
      new Promise((resolve, reject) => {
        const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
        const h = { ...(headers ?? (payload === undefined ? {} : { 'content-type': 'application/json' })) };
        const req = http.request({ host: url.hostname, port: url.port, method, path, headers: h, agent }, (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            if (res.statusCode !== expect) reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`));
            else resolve(text ? JSON.parse(text) : null);
          });
        });
        req.on('error', (err) => reject(new Error(`${method} ${path}: ${err.message}`)));
        req.end(payload);
      });
    const measure = async () => {
      await sleep(opts.settle);
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)[1]) * 1024;
      const answered = once(child, 'message');
      child.send('measure');
      let timer;
      const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the sandbox child did not answer "measure" in 30 s')), 30_000)));
      const gc = await Promise.race([answered, late]).finally(() => clearTimeout(timer));
      if (!gc[0].gc) throw new Error('the sandbox child has no gc(): --expose-gc was not applied');
      const m = gc[0];
      return { rss_settled: kb('VmRSS'), rss_peak: kb('VmHWM'), rss_gc: m.rss, heap_gc: m.heapUsed, heap_total_gc: m.heapTotal, external_gc: m.external };
    };
    const exited = once(child, 'exit');
    return {
      call,
      measure,
      /** SIGTERM: a clean stop (the file store writes its data file whole); resolves with its time. */
      async stopClean() {
        const t = performance.now();
        child.disconnect();
        child.kill('SIGTERM');
        const [code] = await exited;
        stopped = true;
        if (code !== 0) throw new Error(`the sandbox stopped with ${code}: ${stderr}`);
        return { clean_stop_ms: Math.round(performance.now() - t) };
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        if (child.connected) child.disconnect();
        child.kill('SIGKILL');
        await exited;
      },
    };
  }

  /** Runs `task(i)` for i < count, opts.concurrency at a time. */
  async function pool(count, task) {
    let next = 0;
    const worker = async () => {
      while (next < count) await task(next++);
    };
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, count) }, worker));
  }
}

// ---- helpers ----

function parseArgs(argv) {
  let values;
  try {
    ({ values } = parseCli({
      args: argv,
      options: {
        payouts: { type: 'string', default: '50000' },
        merchants: { type: 'string', default: '1000' },
        requests: { type: 'string' },
        stores: { type: 'string', default: 'memory,file' },
        concurrency: { type: 'string', default: '20' },
        settle: { type: 'string', default: '1000' },
        serial: { type: 'boolean', default: false },
        json: { type: 'string' },
      },
    }));
  } catch (err) {
    usage(err.message);
  }
  const whole = (name, min) => {
    const n = Number(values[name]);
    if (!Number.isSafeInteger(n) || n < min) usage(`--${name} must be a whole number of at least ${min}`);
    return n;
  };
  const stores = values.stores.split(',');
  if (stores.some((s) => s !== 'memory' && s !== 'file')) usage('--stores takes memory, file or memory,file');
  const payouts = whole('payouts', 1000);
  return {
    payouts,
    merchants: whole('merchants', 2),
    requests: values.requests === undefined ? 2 * payouts : whole('requests', 1000),
    stores,
    concurrency: whole('concurrency', 1),
    settle: whole('settle', 0),
    serial: values.serial,
    json: values.json ?? null,
  };
}

function usage(problem) {
  console.error(`bench/memory.js: ${problem}`);
  console.error(
    'usage: node bench/memory.js [--payouts N] [--merchants N] [--requests N] [--stores memory,file] [--concurrency N] [--settle MS] [--serial] [--json FILE]',
  );
  process.exit(2);
}

function baseArgs(data) {
  return ['--port', '0', '--data', data, '--log-level', 'silent', '--no-rate-limits', '--clock', 'manual'];
}

/** A webhook receiver in a process of its own: 200 to everything. */
async function startReceiver(firstLine) {
  const code =
    "const s=require('http').createServer((q,r)=>{q.resume();q.on('end',()=>r.end('ok'))});s.listen(0,'127.0.0.1',()=>console.log(s.address().port))";
  const child = spawn(process.execPath, ['-e', code]);
  const [, port] = await firstLine(child, /^(\d+)\n/);
  return { url: `http://127.0.0.1:${port}/hooks`, child };
}

/** The request journal's entries of the emulated API now (the control API's are kept apart, as many at most), and how many are not `merchantId`'s. */
async function journalCount(sb, merchantId) {
  const entries = (await sb.call('GET', '/__sandbox/requests?limit=100000')).requests;
  return { journal: entries.length, journal_others: entries.filter((e) => e.merchant_id !== merchantId).length };
}

/** The data file and its change log, in bytes (file store). */
function filesOf(file) {
  if (file === null) return {};
  const size = (p) => {
    try {
      return statSync(p).size;
    } catch {
      return 0;
    }
  };
  return { data_file: size(file), change_log: size(`${file}.log`) };
}

/** What a clean stop left in the data file: the bounded structures, counted. */
function countDataFile(file) {
  const bytes = statSync(file).size;
  const state = JSON.parse(readFileSync(file, 'utf8'));
  const deliveries = Object.values(state.webhook_deliveries ?? {});
  const pages = Object.values(state.review_facts ?? {});
  const byState = {};
  for (const d of deliveries) byState[d.state] = (byState[d.state] ?? 0) + 1;
  return {
    data_file: bytes,
    payouts: Object.keys(state.payouts).length,
    ledger_entries: Object.values(state.accounts).reduce((n, a) => n + a.ledger.length, 0),
    deliveries: deliveries.length,
    deliveries_by_state: byState,
    delivery_attempts: deliveries.reduce((n, d) => n + d.attempts.length, 0),
    most_attempts_on_one_delivery: deliveries.reduce((n, d) => Math.max(n, d.attempts.length), 0),
    review_fact_pages: pages.length,
    review_facts: pages.reduce((n, p) => n + p.facts.length, 0),
    due_items: Object.keys(state.scheduler.items).length,
  };
}

/** Picks the task for request i from `[[weight, task], …]` (weights out of 100), spread evenly. */
function pick(mix, i) {
  const slot = (i * 37) % 100;
  let at = 0;
  for (const [weight, task] of mix) {
    at += weight;
    if (slot < at) return task;
  }
  return mix.at(-1)[1];
}

/** Least-squares slope of [x, y] points. */
function slope(points) {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

/**
 * The long run's growth by kind of window, heap after GC, over the windows that follow one of
 * their own kind (the first of a kind also carries the change of mix: journal bodies, facts; but
 * first-status and redeliver windows count from the window before them):
 * per 10,000 requests, and what is left once the payouts the windows stored are taken off at
 * part 2's slope (`heapPer10k`).
 */
function growthOf(windows, heapPer10k) {
  const out = {};
  for (const kind of ['mixed', 'reads', 'first-status', 'redeliver']) {
    const sum = { windows: [], requests: 0, payouts: 0, redeliveries: 0, first_status_checks: 0, heap_gc: 0, rss_gc: 0 };
    for (let i = 2; i < windows.length; i++) {
      const [a, b] = [windows[i - 1], windows[i]];
      // first-status: against the reads window before it (the same mix but for which payouts);
      // redeliver: no emulated request moves the journal, so the first one counts too.
      if (b.kind !== kind || (a.kind !== kind && kind !== 'first-status' && kind !== 'redeliver')) continue;
      sum.first_status_checks += b.first_status_checks - a.first_status_checks;
      sum.windows.push(b.window);
      sum.requests += b.requests - a.requests;
      sum.payouts += b.payouts - a.payouts;
      sum.redeliveries += b.redeliveries - a.redeliveries;
      sum.heap_gc += b.heap_gc - a.heap_gc;
      sum.rss_gc += b.rss_gc - a.rss_gc;
    }
    if (sum.requests === 0) continue;
    const beyond = sum.heap_gc - (sum.payouts / 10_000) * heapPer10k;
    out[kind] = {
      ...sum,
      heap_per_10000_requests: (sum.heap_gc / sum.requests) * 10_000,
      heap_beyond_payouts: beyond,
      heap_beyond_payouts_per_10000_requests: (beyond / sum.requests) * 10_000,
      ...(sum.payouts > 0 ? { heap_per_payout: sum.heap_gc / sum.payouts } : {}),
      ...(sum.redeliveries > 0 ? { heap_beyond_payouts_per_redelivery: beyond / sum.redeliveries } : {}),
      ...(sum.first_status_checks > 0 ? { heap_per_first_status_check: sum.heap_gc / sum.first_status_checks } : {}),
    };
  }
  return out;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes) => (bytes / 1024 ** 2).toFixed(1);
const kib = (bytes) => (bytes / 1024).toFixed(1);
const signed = (s) => (s.startsWith('-') ? s : `+${s}`);

/** Rows as columns: the first column and those from `leftFrom` on aligned left, the others right. */
function table(rows, leftFrom = Number.POSITIVE_INFINITY) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  const cell = (v, c) => (c === 0 || c >= leftFrom ? String(v).padEnd(widths[c]) : String(v).padStart(widths[c]));
  return rows.map((r) => r.map(cell).join('  ').trimEnd()).join('\n');
}

/** What the long runs showed growing beyond the stored payouts, with the structure that holds it (read in src/). */
function growsOf(stores) {
  const out = [];
  for (const [store, r] of Object.entries(stores)) {
    const g = r.long_run.growth;
    if (g.redeliver)
      out.push({
        store,
        with: 'a redelivery',
        bytes_each: g.redeliver.heap_beyond_payouts_per_redelivery ?? 0,
        structure: 'WebhookDelivery.attempts (src/webhooks/outbox.ts recordAttempt) and DeliveryIndex.finished (src/webhooks/delivery-index.ts)',
        bounded_by: 'nothing while the delivery is kept',
      });
    const q = g['quiet-merchants'];
    if (q)
      out.push({
        store,
        with: 'a request of a merchant gone quiet',
        bytes_each: q.heap_left_beyond_merchants_per_request,
        structure:
          "Journal.held, a merchant's entries kept for their bodies (src/observe/journal.ts hold, pushOut, compact): let go as the ring drops them (before 78e248e: kept until the merchant's own next request past 1,024 dropped, 1.2 KB a request)",
        bounded_by: '--journal-size (the entries the ring holds, and at most 64 more a merchant)',
      });
    const fs = g['first-status'];
    if (fs)
      out.push({
        store,
        with: "a payout's first status check",
        bytes_each: fs.heap_per_first_status_check ?? 0,
        structure: "statusJson (src/http/api/payouts.ts): a WeakMap of each payout's answer",
        bounded_by: 'the payouts stored (--max-records)',
      });
  }
  return out;
}

function print(r) {
  const m = r.machine;
  const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
  console.log('payout-sandbox memory (issue 37): RSS per merchant, per 10,000 payouts, and under a sustained load');
  console.log(`machine: ${m.line}`);
  console.log(`load average: ${load(r.load_average.start)} at the start, ${load(r.load_average.end)} at the end`);
  console.log(`date: ${r.date}; commit ${m.commit}${m.tree_clean ? '' : ' (working tree has changes)'}; ${r.elapsed_s} s`);
  console.log(`command: ${r.command}`);
  console.log(`sandbox: ${r.sandbox_command}`);
  console.log(
    `client: ${r.settings.concurrency} in flight, keep-alive; stores ${r.settings.serial ? 'one after the other' : 'side by side'}. Settled: VmRSS ${r.settings.settle} ms after the step; GC: RSS and V8 heap used after a forced full GC.`,
  );
  const stores = Object.keys(r.stores);

  console.log(`\n1. Per merchant: ${r.settings.merchants} merchants through POST /__sandbox/merchants, after 20 warm-up merchants`);
  const rows1 = [['store', 'baseline RSS', 'after RSS', 'per merchant: RSS settled', 'RSS after GC', 'heap after GC']];
  for (const s of stores) {
    const x = r.stores[s].merchants;
    const [a, , b] = x.points;
    rows1.push([
      s,
      `${mib(a.rss_settled)} MiB`,
      `${mib(b.rss_settled)} MiB`,
      `${kib(x.per_merchant.rss_settled)} KiB`,
      `${kib(x.per_merchant.rss_gc)} KiB`,
      `${kib(x.per_merchant.heap_gc)} KiB`,
    ]);
  }
  console.log(table(rows1));

  console.log('\n2. Per 10,000 payouts: V2 initializes of one merchant, settled by clock advances, each delivered to a webhook receiver');
  const rows2 = [['store', 'payouts', 'RSS settled', 'RSS peak', 'RSS after GC', 'heap after GC', 'V8 heap committed', 'data file + log']];
  for (const s of stores) {
    for (const p of r.stores[s].payouts.steps) {
      const files = p.data_file === undefined ? '-' : `${mib(p.data_file)} + ${mib(p.change_log)} MiB`;
      rows2.push([
        s,
        p.payouts,
        `${mib(p.rss_settled)} MiB`,
        `${mib(p.rss_peak)} MiB`,
        `${mib(p.rss_gc)} MiB`,
        `${mib(p.heap_gc)} MiB`,
        `${mib(p.heap_total_gc)} MiB`,
        files,
      ]);
    }
  }
  console.log(table(rows2));
  for (const s of stores) {
    const { per_10000: p, first_step_per_10000: f, steps } = r.stores[s].payouts;
    console.log(
      `${s}: per 10,000 payouts (slope over ${steps
        .slice(1)
        .map((x) => x.payouts)
        .join(', ')}): RSS settled ${signed(mib(p.rss_settled))} MiB, RSS after GC ${signed(mib(p.rss_gc))} MiB, heap ${signed(mib(p.heap_gc))} MiB` +
        ` (${kib(p.heap_gc / 10_000)} KiB of heap a payout); the first step, bounds filling, scaled to 10,000: heap ${signed(mib(f.heap_gc))} MiB`,
    );
  }

  const first = r.stores[stores[0]].long_run;
  console.log(
    `\n3. Long-running: part 2's sandboxes go on, ${first.requests_per_window} requests a window, a clock advance and a webhook settle every ${Math.min(1000, first.requests_per_window)}`,
  );
  console.log(
    `   mixed: 10 % initializes, 50 % status checks (one of the newest ${first.recent_payouts_polled} payouts), 40 % balance checks; reads: 60/40 status/balance;` +
      ' first-status: 60 % status checks of the oldest payouts, each checked for the first time; quiet-merchants: new merchants, balance checks; redeliver: redeliveries only, half a window',
  );
  const rows3 = [['store', 'window', 'kind', 'requests', 'payouts', 'RSS settled', 'RSS after GC', 'heap after GC', 'Δ heap', 'journal (others)']];
  for (const s of stores) {
    const ws = r.stores[s].long_run.windows;
    for (const [i, w] of ws.entries())
      rows3.push([
        s,
        w.window,
        w.kind,
        w.requests,
        w.payouts,
        `${mib(w.rss_settled)} MiB`,
        `${mib(w.rss_gc)} MiB`,
        `${mib(w.heap_gc)} MiB`,
        i === 0 ? '' : `${signed(mib(w.heap_gc - ws[i - 1].heap_gc))} MiB`,
        `${w.journal} (${w.journal_others})`,
      ]);
  }
  console.log(table(rows3));
  for (const s of stores) {
    const g = r.stores[s].long_run.growth;
    const of = (x) => `windows ${x.windows.join(', ')}: ${x.requests} requests`;
    console.log(`${s} (heap after GC, over the windows that follow one of their own kind):`);
    if (g.mixed)
      console.log(
        `  mixed, ${of(g.mixed)}, ${g.mixed.payouts} payouts stored: heap ${signed(mib(g.mixed.heap_gc))} MiB (${kib(g.mixed.heap_per_payout ?? 0)} KiB a payout); beyond the payouts at part 2's slope: ${signed(kib(g.mixed.heap_beyond_payouts_per_10000_requests))} KiB per 10,000 requests`,
      );
    if (g.reads) console.log(`  reads only, ${of(g.reads)}: heap ${signed(kib(g.reads.heap_per_10000_requests))} KiB per 10,000 requests`);
    const fs = g['first-status'];
    if (fs)
      console.log(
        `  first-status, window ${fs.windows.join(', ')}: ${fs.first_status_checks} payouts checked for the first time: heap ${signed(mib(fs.heap_gc))} MiB, ${signed(String(Math.round(fs.heap_per_first_status_check ?? 0)))} B a payout`,
      );
    const q = g['quiet-merchants'];
    if (q)
      console.log(
        `  quiet merchants: ${q.merchants} new merchants made ${q.requests} balance checks: heap ${signed(mib(q.heap_gc_window))} MiB; after the next window (their journal entries left: ${q.journal_entries_of_other_merchants_after}): ${signed(mib(q.heap_gc_after_next_window))} MiB,` +
          ` of which ${mib(q.merchants_own_heap)} MiB the merchants themselves (part 1): ${signed(String(Math.round(q.heap_left_beyond_merchants_per_request)))} B left a request`,
      );
    if (g.redeliver)
      console.log(
        `  redeliveries, ${of(g.redeliver)}, ${g.redeliver.redeliveries} redeliveries: heap ${signed(kib(g.redeliver.heap_per_10000_requests))} KiB per 10,000 requests, ${signed(String(Math.round(g.redeliver.heap_beyond_payouts_per_redelivery ?? 0)))} B a redelivery`,
      );
  }
  for (const s of stores) {
    const f = r.stores[s].file_at_stop;
    if (!f) continue;
    console.log(
      `${s} store, data file after a clean stop (${f.clean_stop_ms} ms): ${mib(f.data_file)} MiB; ${f.payouts} payouts, ${f.ledger_entries} ledger entries, ${f.deliveries} deliveries ${JSON.stringify(f.deliveries_by_state)}` +
        ` with ${f.delivery_attempts} attempts (at most ${f.most_attempts_on_one_delivery} on one), ${f.review_facts} review facts in ${f.review_fact_pages} pages, ${f.due_items} due items`,
    );
  }

  console.log('\nWhat grows beyond the stored payouts (heap measured above; the structure read in src/ at this commit):');
  console.log(
    table(
      [
        ['store', 'bytes each', 'per 10,000', 'each: grows with', 'structure', 'bounded by'],
        ...r.grows.map((g) => [
          g.store,
          signed(String(Math.round(g.bytes_each))),
          `${signed(mib(g.bytes_each * 10_000))} MiB`,
          g.with,
          g.structure,
          g.bounded_by,
        ]),
      ],
      3,
    ),
  );
  for (const s of stores) {
    const f = r.stores[s].file_at_stop;
    if (f)
      console.log(`${s}: at the stop ${f.delivery_attempts} attempts on ${f.deliveries} deliveries kept, at most ${f.most_attempts_on_one_delivery} on one`);
  }

  console.log('\nBounds (defaults, from src/):');
  console.log(table([['bound', 'default', 'where', 'what it bounds'], ...r.bounds.map((b) => [b.name, b.default, b.where, b.what])], 0));
}

// In the sandbox child (preloaded with --import): answer "measure" with the memory after a full GC.
// Here, at the end, so that main() finds every constant above defined.
if (process.env.BENCH_MEMORY_PROBE === '1') {
  process.on('message', async (msg) => {
    if (msg !== 'measure') return;
    // Full GCs with a pause between: what finalizers release (fetch's abort signals, each webhook
    // attempt's) goes at the next one, so the heap left is what the sandbox holds.
    for (let i = 0; i < 3; i++) {
      globalThis.gc?.();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    globalThis.gc?.();
    process.send?.({ ...process.memoryUsage(), gc: typeof globalThis.gc === 'function' });
  });
} else {
  await main();
}
