import { RequestError } from '../errors.js';
import type { Scenario } from '../scenario/scenario.js';
import type { State } from '../store/state.js';
import { toIso } from '../time.js';
import type { SandboxCore } from './core.js';

interface Snapshot {
  state: State;
  clock: number;
  scenario: Scenario;
  at: string;
  /** Size of the state as JSON: what counts against --max-snapshot-bytes. */
  bytes: number;
}

/** Whole-sandbox snapshots, in memory, within --max-snapshots and --max-snapshot-bytes. */
export class Snapshots {
  private readonly byName = new Map<string, Snapshot>();

  constructor(private readonly sb: SandboxCore) {}

  list() {
    return { snapshots: [...this.byName.entries()].map(([name, s]) => ({ name, at: s.at })) };
  }

  clear(): void {
    this.byName.clear();
  }

  /** Saves the whole state, the clock and the scenario in force under `name`. */
  save(name: string) {
    const { sb } = this;
    const { maxSnapshots, maxSnapshotBytes } = sb.config;
    const replaced = this.byName.get(name);
    if (!replaced && this.byName.size >= maxSnapshots) {
      throw new RequestError(409, `The sandbox keeps at most ${maxSnapshots} snapshots (--max-snapshots); restore or reset, or raise the cap.`);
    }
    const bytes = JSON.stringify(sb.repo.state).length;
    const total = [...this.byName.values()].reduce((n, s) => n + s.bytes, 0) - (replaced?.bytes ?? 0);
    if (total + bytes > maxSnapshotBytes) {
      throw new RequestError(409, `Snapshots may take ${maxSnapshotBytes} bytes in all (--max-snapshot-bytes); this one needs ${bytes} and ${total} are taken.`);
    }
    const at = toIso(sb.clock.now());
    this.byName.set(name, { state: structuredClone(sb.repo.state), clock: sb.clock.now(), scenario: sb.scenario(), at, bytes });
    return { name, at };
  }

  /** Puts a snapshot's state, clock and scenario back in force (the caller persists). */
  restore(name: string): void {
    const snap = this.byName.get(name);
    if (!snap) throw new RequestError(404, `No snapshot named ${name}.`);
    this.sb.setScenario(snap.scenario);
    this.sb.replaceState(structuredClone(snap.state), snap.clock);
  }
}
