import { RequestError } from '../errors.js';
import type { CounterEntries, SandboxCore } from '../sandbox/core.js';
import type { Scenario } from '../scenario/scenario.js';
import { sliceOf } from '../store/slices.js';
import type { MerchantSlice, State } from '../store/state.js';
import { toIso } from '../time.js';

interface Saved {
  at: string;
  /** Size as JSON: what counts against --max-snapshot-bytes. */
  bytes: number;
}

interface WholeSnapshot extends Saved {
  state: State;
  clock: number;
  scenario: Scenario;
}

interface MerchantSnapshot extends Saved {
  slice: MerchantSlice;
  counters: CounterEntries[];
}

/**
 * Snapshots, in memory: of the whole sandbox (state, clock, scenario) and of one merchant (its
 * records, due items, clock, coverage and rate-limit counters). Both kinds share
 * --max-snapshots and --max-snapshot-bytes.
 */
export class Snapshots {
  private readonly whole = new Map<string, WholeSnapshot>();
  /** By merchant, then name. */
  private readonly merchants = new Map<string, Map<string, MerchantSnapshot>>();

  constructor(private readonly sb: SandboxCore) {}

  list() {
    return { snapshots: [...this.whole.entries()].map(([name, s]) => ({ name, at: s.at })) };
  }

  listOf(merchantId: string) {
    return { merchant_id: merchantId, snapshots: [...(this.merchants.get(merchantId)?.entries() ?? [])].map(([name, s]) => ({ name, at: s.at })) };
  }

  clear(): void {
    this.whole.clear();
    this.merchants.clear();
  }

  private all(): Saved[] {
    return [...this.whole.values(), ...[...this.merchants.values()].flatMap((m) => [...m.values()])];
  }

  /** Refuses (409) a snapshot of `bytes` that would go past the caps (`replaced`: the one it takes the place of). */
  private checkRoom(bytes: number, replaced: Saved | undefined): void {
    const { maxSnapshots, maxSnapshotBytes } = this.sb.config;
    const all = this.all();
    if (!replaced && all.length >= maxSnapshots) {
      throw new RequestError(409, `The sandbox keeps at most ${maxSnapshots} snapshots (--max-snapshots); restore or reset, or raise the cap.`);
    }
    const total = all.reduce((n, s) => n + s.bytes, 0) - (replaced?.bytes ?? 0);
    if (total + bytes > maxSnapshotBytes) {
      throw new RequestError(
        409,
        `Snapshots may take ${maxSnapshotBytes} bytes in all (--max-snapshot-bytes); this one needs ${bytes} and ${total} are taken.`,
      );
    }
  }

  /** Saves the whole state, the clock and the scenario in force under `name`. */
  save(name: string) {
    const { sb } = this;
    const bytes = JSON.stringify(sb.repo.state).length;
    this.checkRoom(bytes, this.whole.get(name));
    const at = toIso(sb.clock.now());
    this.whole.set(name, { state: structuredClone(sb.repo.state), clock: sb.clock.now(), scenario: sb.scenario(), at, bytes });
    return { name, at };
  }

  /** Puts a snapshot's state, clock and scenario back in force (the caller persists). */
  restore(name: string): void {
    const snap = this.whole.get(name);
    if (!snap) throw new RequestError(404, `No snapshot named ${name}.`);
    this.sb.setScenario(snap.scenario);
    this.sb.replaceState(structuredClone(snap.state), snap.clock);
  }

  /** Saves one merchant's records, clock and counters under `name` (names are the merchant's own). */
  saveMerchant(merchantId: string, name: string) {
    const { sb } = this;
    const slice = sliceOf(sb.repo.state, merchantId, sb.repo.store.owners);
    const bytes = JSON.stringify(slice).length;
    const own = this.merchants.get(merchantId) ?? new Map<string, MerchantSnapshot>();
    this.checkRoom(bytes, own.get(name));
    const at = toIso(sb.clocks.now(merchantId));
    own.set(name, { slice, counters: [...sb.counters].map((c) => c.merchantCounters(merchantId)), at, bytes });
    this.merchants.set(merchantId, own);
    return { merchant_id: merchantId, name, at };
  }

  /** Puts a merchant's snapshot back in place of its records (the caller persists). */
  restoreMerchant(merchantId: string, name: string): void {
    const snap = this.merchants.get(merchantId)?.get(name);
    if (!snap) throw new RequestError(404, `No snapshot named ${name} of merchant ${merchantId}.`);
    this.sb.replaceMerchant(snap.slice, snap.counters);
  }
}
