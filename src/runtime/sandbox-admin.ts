import { RequestError } from '../errors.js';
import { ScenarioError, loadScenario, scenarioFromValue } from '../scenario/scenario.js';
import { VERSION } from '../version.js';
import type { ScenarioChoice } from './admin-types.js';
import { Browse } from './browse.js';
import type { SandboxCore } from './core.js';
import { MerchantAdmin, durationMs } from './merchant-admin.js';
import { scenarioFile } from './scenario-files.js';
import { Snapshots } from './snapshots.js';
import * as views from './views.js';

/** The admin surface of the sandbox as a whole: health, the sandbox clock, reset, the scenario, whole snapshots. */
export class SandboxAdmin {
  protected readonly snaps: Snapshots;
  /** One merchant's clock, snapshots and reset. */
  readonly merchants: MerchantAdmin;
  /** What the dashboard lists and opens. */
  readonly browse: Browse;

  constructor(protected readonly sb: SandboxCore) {
    this.snaps = new Snapshots(sb);
    this.merchants = new MerchantAdmin(sb, this.snaps);
    this.browse = new Browse(sb);
  }

  /** Writes the change, then lets anything now due (a webhook of a forced change) go out. */
  protected async commit(): Promise<void> {
    await this.sb.repo.persist();
    this.sb.scheduler.runDue().catch((err: unknown) => this.sb.logger.error({ err }, 'running due items failed'));
  }

  health() {
    return { ok: true, version: VERSION };
  }

  clock() {
    return views.clockView(this.sb.clock);
  }

  /** Manual clock: moves time on by a duration (`'24h'`) or milliseconds, firing everything due in order. */
  async advance(by: string | number) {
    const ms = durationMs(by);
    if (this.sb.clock.mode !== 'manual') throw new RequestError(409, 'The clock is real: start the sandbox with --clock manual to advance it.');
    await this.sb.scheduler.advance(ms);
    this.sb.changes.note('clock');
    return this.clock();
  }

  /** Manual clock: moves time on to the next scheduled event of the merchants that follow it (409 when none is due). */
  async next() {
    const due = this.sb.scheduler.nextDue(null);
    if (due === null) throw new RequestError(409, 'Nothing is scheduled on the sandbox clock.');
    return this.advance(Math.max(0, due - this.sb.clock.now()));
  }

  /** Back to the fixtures and the configured scenario; snapshots and the journal are cleared. */
  async reset() {
    this.snaps.clear();
    await this.sb.resetState();
    this.sb.journal.clear();
    return { ok: true, clock: this.clock(), scenario: this.sb.scenario().name };
  }

  /** Puts a scenario in force: a file of scenarios/ by name, or one given whole. */
  async useScenario(choice: ScenarioChoice) {
    if ((choice.name === undefined) === (choice.scenario === undefined)) {
      throw new RequestError(400, 'Give either name (a file in scenarios/) or scenario (the scenario itself).');
    }
    try {
      this.sb.setScenario(choice.name !== undefined ? await loadScenario(scenarioFile(choice.name)) : scenarioFromValue(choice.scenario, 'inline'));
    } catch (err) {
      if (err instanceof ScenarioError) throw new RequestError(400, err.message);
      throw err;
    }
    return { name: this.sb.scenario().name, source: this.sb.scenario().source };
  }

  snapshots() {
    return this.snaps.list();
  }

  /** Saves the whole state, the clock and the scenario in force under `name` (in memory). */
  snapshot(name: string) {
    return this.snaps.save(name);
  }

  async restore(name: string) {
    this.snaps.restore(name);
    await this.sb.repo.persist();
    return { name, clock: this.clock() };
  }
}
