import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClockMove, RecordedEntry } from '../observe/journal.js';
import { buildTrace, type Trace } from '../observe/trace.js';
import type { Merchant } from '../store/state.js';
import { VERSION } from '../version.js';
import type { SandboxCore } from './core.js';

/**
 * A merchant's trace from the running sandbox: its records, the journal's entries and notes, its
 * coverage and review, gathered for observe/trace.ts. Used by the control API (admin/trace-admin.ts)
 * and by `--trace-dir` at shutdown.
 */
export function traceOf(sb: SandboxCore, merchant: Merchant): Trace {
  const id = merchant.merchant_id;
  const { repo, clocks, journal } = sb;
  const clock = clocks.of(id);
  const entries = journal.exchangesOf(id, merchant.email);
  return buildTrace({
    realNow: Date.now(),
    sandbox: {
      version: VERSION,
      scenario: sb.scenario().name,
      journalSize: journal.capacity,
      bodyLimits: journal.limits,
      webhookUrl: sb.config.webhookUrl,
    },
    merchant,
    accounts: repo.accountsOf(id),
    clock: { now: clock.now(), mode: clock.mode, speed: clock.mode === 'manual' ? 0 : clock.speed, follows_sandbox_clock: !clocks.hasOwn(id) },
    entries,
    pushedOut: journal.pushedOutOf(id),
    payoutIds: repo.payoutIdsOf(id),
    payout: (refId) => repo.payout(id, refId),
    due: sb.scheduler.pending(id),
    deliveries: sb.webhooks.list({ merchantId: id, limit: Number.MAX_SAFE_INTEGER }),
    endpoint: sb.webhooks.endpoints.of(id),
    clockMoves: movesOf(sb, id, entries),
    changedAt: (refId, status, at) => journal.changedAt(refId, status, at),
    coverage: sb.coverage.report(id),
    review: sb.review.enabled ? sb.review.report(id) : null,
    secrets: sb.config.adminToken === null ? [] : [sb.config.adminToken],
  });
}

/**
 * The advances that moved the merchant's time, from its first request kept on: its own clock's,
 * and the sandbox clock's while it followed it (until it got a clock of its own).
 */
function movesOf(sb: SandboxCore, id: string, entries: RecordedEntry[]): ClockMove[] {
  const ownSince = sb.store.state.merchant_clocks?.[id]?.real_anchor ?? Infinity;
  const first = entries[0]?.x?.real_at ?? -Infinity;
  return sb.journal.clockMoves(id).filter((m) => m.real_at >= first && (m.merchant_id === id || m.real_at < ownSince));
}

/** The merchants that made a request of the emulated API the journal still holds (by id, or a refused one by e-mail or merchant id). */
export function tracedMerchants(sb: SandboxCore): Merchant[] {
  const seen = sb.journal.merchantsSeen();
  return sb.repo.allMerchants().filter((m) => seen.has(m.merchant_id) || seen.has(m.email));
}

/** A trace's file name in a trace directory: `<merchant_id>.trace.json`. */
export const traceFileName = (merchantId: string) => `${merchantId.replace(/[^A-Za-z0-9._-]/g, '_')}.trace.json`;

/**
 * `--trace-dir DIR`: one trace per merchant that made a request, each written whole or not at all
 * (a temporary file renamed). Resolves to the files written.
 */
export async function writeTraces(sb: SandboxCore, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const m of tracedMerchants(sb)) {
    const file = join(dir, traceFileName(m.merchant_id));
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify(traceOf(sb, m)));
    await rename(temp, file);
    files.push(file);
  }
  return files;
}
