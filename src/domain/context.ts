import type { Logger } from 'pino';
import type { BehaviourId } from '../behaviours.js';
import type { SandboxRandom } from '../random.js';
import type { Scenario } from '../scenario/scenario.js';
import type { Clocks } from '../schedule/clocks.js';
import type { Scheduler } from '../schedule/scheduler.js';
import type { Repo } from '../store/repo.js';
import type { Payout } from '../store/state.js';

/**
 * The sandbox's event bus: payout status changes (the webhook outbox attaches here), and the
 * behaviours a merchant's integration was shown (behaviour coverage attaches here), emitted from
 * every layer through this one channel with a typed id (behaviours.ts).
 */
export class EventBus {
  private readonly listeners: Array<(payout: Payout) => void> = [];
  private readonly behaviourListeners: Array<(merchantId: string, id: BehaviourId) => void> = [];

  onBehaviour(listener: (merchantId: string, id: BehaviourId) => void): void {
    this.behaviourListeners.push(listener);
  }

  behaviour(merchantId: string, id: BehaviourId): void {
    for (const l of this.behaviourListeners) l(merchantId, id);
  }

  onPayoutStatus(listener: (payout: Payout) => void): void {
    this.listeners.push(listener);
  }

  /** Called once per status change, synchronously, inside the change (so both persist together). */
  emitPayoutStatus(payout: Payout): void {
    for (const l of this.listeners) l(payout);
  }
}

/** What domain operations work with: the state, the clocks, the scheduler, the scenario, the ids. */
export interface DomainContext {
  repo: Repo;
  /** Every merchant's clock: what a merchant sees is stamped with `clocks.now(merchantId)`. */
  clocks: Clocks;
  random: SandboxRandom;
  scheduler: Scheduler;
  events: EventBus;
  logger: Logger;
  scenario(): Scenario;
}
