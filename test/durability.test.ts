import { readFileSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import request from 'supertest';
import { createApp, type SandboxApp } from '../src/app.js';
import type { LogHandle } from '../src/store/change-log.js';
import { logPathOf, StoreWriteError } from '../src/store/store.js';
import { DEMO, initialize, payoutBody, status, useTempDir } from './helpers.js';

/**
 * A file store whose writes fail (a full disk): a short write is a failed write, nothing failed
 * is acknowledged or shown, the log never keeps a fragment, the writes are retried until they
 * work, the scheduler goes on after it, and a stop waits until everything is on disk.
 */

const dir = useTempDir();
const file = () => join(dir(), 'db.json');

/**
 * A disk as the change log sees it: `ok`, `short` (every write takes half of what it is given and
 * says so, as a write near a full disk does), or `full` (the first write takes half, then ENOSPC).
 * `failures` resolves each time a write fails.
 */
function flakyDisk() {
  const disk = {
    mode: 'ok' as 'ok' | 'short' | 'full',
    /** Emptying (or cutting back) the log fails with EIO. */
    failTruncate: false,
    failed: 0,
    onFailure: [] as Array<() => void>,
    /** Resolves at the next failed write. */
    nextFailure(): Promise<void> {
      return new Promise((resolve) => disk.onFailure.push(resolve));
    },
    openLog: async (path: string): Promise<LogHandle> => {
      const h = await open(path, 'a');
      let halfDone = false;
      return {
        write: async (buf, offset, length) => {
          if (disk.mode === 'ok') return h.write(buf, offset, length);
          const half = Math.ceil(length / 2);
          if (disk.mode === 'short' || (disk.mode === 'full' && !halfDone)) {
            halfDone = disk.mode === 'full';
            return h.write(buf, offset, half);
          }
          halfDone = false;
          disk.failed += 1;
          for (const f of disk.onFailure.splice(0)) f();
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        },
        datasync: () => h.datasync(),
        truncate: (n) => (disk.failTruncate ? Promise.reject(Object.assign(new Error('EIO: i/o error, ftruncate'), { code: 'EIO' })) : h.truncate(n)),
        close: () => h.close(),
      };
    },
  };
  return disk;
}

function fileApp(disk: ReturnType<typeof flakyDisk>, extra: Record<string, unknown> = {}): Promise<SandboxApp> {
  return createApp({ data: file(), clock: 'manual', seed: 7, logLevel: 'silent', fsync: false, storeHooks: { openLog: disk.openLog }, ...extra });
}

/** Every line of the change log is whole JSON (no fragment anywhere). */
function logLines(): unknown[] {
  const text = readFileSync(logPathOf(file()), 'utf8');
  expect(text === '' || text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);
}

test('a short write is written on to its end: the request is answered 200 and its line replays', async () => {
  const disk = flakyDisk();
  const app = await fileApp(disk);
  disk.mode = 'short';
  const res = await initialize(app, payoutBody());
  expect(res.status).toBe(200);
  expect(logLines().length).toBeGreaterThan(0);
  await app.sandbox.close();
  const again = await fileApp(flakyDisk());
  expect(again.sandbox.repo.state.payouts[res.body.data.ref_id]).toBeDefined();
  await again.sandbox.close();
});

test('a write cut short by a full disk is never a 200: the log is cut back to its last whole line, the change is shown only once written', async () => {
  const disk = flakyDisk();
  const app = await fileApp(disk);
  const first = await initialize(app, payoutBody());
  expect(first.status).toBe(200);
  const bytesBefore = statSync(logPathOf(file())).size;

  disk.mode = 'full';
  const body = payoutBody();
  const cut = await initialize(app, body);
  expect(cut.status).toBe(500);
  expect(cut.body).toEqual({ success: false, http_code: 500, message: expect.any(String) });
  expect(cut.headers['x-sandbox-store-error']).toMatch(/no space left on the device \(ENOSPC\)/);
  // Half a line was written, then cut off again: the log is as it was.
  expect(statSync(logPathOf(file())).size).toBe(bytesBefore);
  logLines();

  // While the store cannot write, nothing is shown and nothing is done: 503, Retry-After.
  const look = await status(app, { client_ref_id: body.client_ref_id as string });
  expect(look.status).toBe(503);
  expect(look.body).toEqual({ success: false, http_code: 503, message: 'Service temporarily unavailable. Please try again later.' });
  expect(look.headers['retry-after']).toBe('5');
  const another = await initialize(app, payoutBody());
  expect(another.status).toBe(503);
  const health = await request(app).get('/__sandbox/health');
  expect(health.status).toBe(503);
  expect(health.body).toEqual({ ok: false, error: expect.stringMatching(/cannot write its data file .*ENOSPC/) });
  expect(app.sandbox.store.failure).toBeInstanceOf(StoreWriteError);

  // Space comes back: the next try (the store's own retry, here forced) writes the change.
  disk.mode = 'ok';
  await app.sandbox.store.persist();
  expect(app.sandbox.store.failure).toBeNull();
  const found = await status(app, { client_ref_id: body.client_ref_id as string });
  expect(found.status).toBe(200);
  expect(found.body.data.transaction.status).toBe('Pending');
  expect((await request(app).get('/__sandbox/health')).body).toMatchObject({ ok: true });

  // A restart reads what was answered 500 and then written, and every line replays.
  const lines = logLines().length;
  expect(lines).toBeGreaterThanOrEqual(2);
  const { crashStore } = await import('../src/store/store.js');
  app.sandbox.scheduler.stop();
  await crashStore(app.sandbox.store);
  const again = await fileApp(flakyDisk());
  const payouts = Object.values(again.sandbox.repo.state.payouts).map((p) => p.client_ref_id);
  expect(payouts).toEqual(expect.arrayContaining([body.client_ref_id, first.body.data.client_ref_id]));
  await again.sandbox.close();
});

test('a request in the same batch as a failed write gets an error too; answers that could show the change wait for it', async () => {
  const disk = flakyDisk();
  const app = await fileApp(disk);
  disk.mode = 'full';
  const bodies = [payoutBody(), payoutBody(), payoutBody()];
  const answers = await Promise.all(bodies.map((b) => initialize(app, b)));
  for (const a of answers) expect(a.status).not.toBe(200);
  expect(answers.map((a) => a.status)).toContain(500);
  disk.mode = 'ok';
  await app.sandbox.store.persist();
  for (const b of bodies.filter((_, i) => answers[i].status === 500)) {
    expect((await status(app, { client_ref_id: b.client_ref_id as string })).status).toBe(200);
  }
  await app.sandbox.close();
});

test('a stop while the disk is full rejects and keeps everything; once space is back it writes and closes', async () => {
  const disk = flakyDisk();
  const app = await fileApp(disk);
  disk.mode = 'full';
  const body = payoutBody();
  expect((await initialize(app, body)).status).toBe(500);
  await expect(app.sandbox.close()).rejects.toBeInstanceOf(StoreWriteError);
  // Still open: a second try after space came back closes it, with the change written.
  disk.mode = 'ok';
  await app.sandbox.close();
  const again = await fileApp(flakyDisk());
  expect(Object.values(again.sandbox.repo.state.payouts).map((p) => p.client_ref_id)).toContain(body.client_ref_id);
  await again.sandbox.close();
});

test('after a failed write the scheduler goes on: items due later run once writing works again, with no new request', async () => {
  const disk = flakyDisk();
  // A real clock sped up 100×: the first step is due 300 ms (real) after it is created, the second 600 ms.
  const app = await fileApp(disk, { clock: 'real', speed: 100 });
  const soon = await initialize(app, payoutBody({ remarks: 'sbx:Success@30s' }));
  const later = await initialize(app, payoutBody({ remarks: 'sbx:Success@60s' }));
  expect([soon.status, later.status]).toEqual([200, 200]);
  const settled = new Promise<void>((resolve) => {
    app.sandbox.events.onPayoutStatus((p) => {
      if (p.ref_id === later.body.data.ref_id && p.status === 'Success') resolve();
    });
  });
  // The first step's write fails (the disk is full when its timer fires) ...
  disk.mode = 'full';
  const laterAtFailure = disk.nextFailure().then(() => app.sandbox.repo.state.payouts[later.body.data.ref_id].status);
  // (The later item had not run yet: the failed write was the first step's, so what follows tests the re-arm.)
  expect(await laterAtFailure).toBe('Pending');
  // ... space comes back: the store's retry (with back-off) writes, and the later item still runs.
  disk.mode = 'ok';
  await settled;
  await app.sandbox.store.persist();
  const state = app.sandbox.repo.state.payouts;
  expect(state[soon.body.data.ref_id].status).toBe('Success');
  expect(state[later.body.data.ref_id].status).toBe('Success');
  await app.sandbox.close();
});

test('a webhook tells only what is on disk: with the disk full no attempt goes out, and it goes once writing works', async () => {
  const { startReceiver } = await import('./receiver.js');
  const receiver = await startReceiver(() => 200);
  const disk = flakyDisk();
  const app = await fileApp(disk);
  try {
    await request(app).patch(`/__sandbox/merchants/${DEMO.email}`).send({ webhook_url: receiver.url });
    const ref = (await initialize(app, payoutBody())).body.data.ref_id as string;
    disk.mode = 'full';
    expect((await request(app).post('/__sandbox/clock/advance').send({ by: '10s' })).status).toBe(500);
    await app.sandbox.admin.settleWebhooks();
    expect(receiver.bodies()).toHaveLength(0);
    disk.mode = 'ok';
    await app.sandbox.store.persist();
    await app.sandbox.scheduler.runDue();
    await app.sandbox.admin.settleWebhooks();
    expect(receiver.bodies()).toHaveLength(1);
    expect(app.sandbox.repo.state.payouts[ref].status).toBe('Success');
  } finally {
    await receiver.close();
    await app.sandbox.close();
  }
});

test('an event stream that ends while the store cannot write ends cleanly (no crash, no unhandled rejection)', async () => {
  const { listen } = await import('../src/listen.js');
  const disk = flakyDisk();
  const app = await fileApp(disk);
  const server = await listen(app, 0, '127.0.0.1');
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown) => unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  try {
    const { port } = server.address() as { port: number };
    const stream = await fetch(`http://127.0.0.1:${port}/__sandbox/events`);
    const reader = stream.body!.getReader();
    await reader.read();
    disk.mode = 'full';
    expect((await initialize(app, payoutBody())).status).toBe(500);
    app.sandbox.changes.close();
    for (let r = await reader.read(); !r.done; r = await reader.read());
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
    disk.mode = 'ok';
  } finally {
    process.off('unhandledRejection', onUnhandled);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await app.sandbox.close();
  }
});

test('a compaction with no room (a tidy-up) fails alone: the appends go on, every 200 is kept', async () => {
  const disk = flakyDisk();
  let full = false;
  const enospc = () => {
    if (full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };
  // compactBytes 0: every write past the document's size would compact; the compaction fails before its rename.
  const app = await fileApp(disk, { compactBytes: 0, storeHooks: { openLog: disk.openLog, beforeRename: enospc } });
  full = true;
  const refs: string[] = [];
  for (let i = 0; i < 30; i++) {
    const res = await initialize(app, payoutBody());
    expect(res.status).toBe(200);
    refs.push(res.body.data.ref_id);
  }
  const { crashStore } = await import('../src/store/store.js');
  app.sandbox.scheduler.stop();
  await crashStore(app.sandbox.store);
  full = false;
  const again = await fileApp(flakyDisk());
  for (const ref of refs) expect(again.sandbox.repo.state.payouts[ref]).toBeDefined();
  await again.sandbox.close();
});

test('a restore whose log could not be emptied, then a crash: the restart reads the restored state (generations only go up)', async () => {
  const disk = flakyDisk();
  // compactBytes 0: writes compact as they go, so the document's generation moves past the snapshot's.
  const app = await fileApp(disk, { compactBytes: 0 });
  for (let i = 0; i < 3; i++) await initialize(app, payoutBody());
  await request(app).post('/__sandbox/snapshots').send({ name: 'three' });
  const generation = () => (JSON.parse(readFileSync(file(), 'utf8')) as { log_generation: number }).log_generation;
  const atSnapshot = generation();
  for (let i = 0; i < 400 && generation() < atSnapshot + 2; i++) await initialize(app, payoutBody());
  expect(generation()).toBeGreaterThanOrEqual(atSnapshot + 2);
  // Lines of the current generation in the log, higher than the snapshot's.
  await initialize(app, payoutBody());
  disk.failTruncate = true;
  // The restore's compaction writes its document; the log (with the lines of a higher generation than the snapshot's) cannot be emptied.
  expect((await request(app).post('/__sandbox/snapshots/three/restore').send()).status).toBe(200);
  const { crashStore } = await import('../src/store/store.js');
  app.sandbox.scheduler.stop();
  await crashStore(app.sandbox.store);
  const again = await fileApp(flakyDisk(), { compactBytes: 0 });
  expect(Object.keys(again.sandbox.repo.state.payouts)).toHaveLength(3);
  await again.sandbox.close();
});
