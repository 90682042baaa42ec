import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { SandboxRandom } from '../random.js';
import type { Scenario } from '../scenario/scenario.js';
import type { Scheduler } from '../scheduler.js';
import type { Repo } from '../store/repo.js';
import type { Payout } from '../store/state.js';

/** Listeners of payout status changes (the webhook outbox attaches here). */
export class PayoutEvents {
  private readonly listeners: Array<(payout: Payout) => void> = [];

  onPayoutStatus(listener: (payout: Payout) => void): void {
    this.listeners.push(listener);
  }

  /** Called once per status change, synchronously, inside the change (so both persist together). */
  emitPayoutStatus(payout: Payout): void {
    for (const l of this.listeners) l(payout);
  }
}

/** What domain operations work with: the state, the clock, the scheduler, the scenario, the ids. */
export interface DomainContext {
  repo: Repo;
  clock: Clock;
  random: SandboxRandom;
  scheduler: Scheduler;
  events: PayoutEvents;
  logger: Logger;
  scenario(): Scenario;
}
