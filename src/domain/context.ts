import type { Clock } from '../clock.js';
import type { SandboxRandom } from '../random.js';
import type { Repo } from '../store/repo.js';

/** What domain operations work with: the state, the clock and the source of ids. */
export interface DomainContext {
  repo: Repo;
  clock: Clock;
  random: SandboxRandom;
}
