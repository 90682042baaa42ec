export type ClockMode = 'real' | 'manual';

/** Where the manual clock starts when nothing else says: a fixed instant, so seeded runs repeat. */
export const DEFAULT_MANUAL_START = Date.parse('2026-01-01T09:00:00+05:30');

export interface ClockOptions {
  mode: ClockMode;
  /** Real time sped up this many times (real mode only). */
  speed: number;
  /** Sandbox time at start-up, in ms since the epoch. Defaults: real now, or DEFAULT_MANUAL_START. */
  start?: number;
  /** The real instant (ms since the epoch) at which sandbox time was `start` (real modes); default: now. */
  realAnchor?: number;
}

/**
 * The one clock everything time-based reads: real, real sped up, or manual (moves only when advanced).
 * Sandbox time = start + (real elapsed × speed) for the real modes.
 */
export class Clock {
  readonly mode: ClockMode;
  readonly speed: number;
  readonly realAnchor: number;
  private anchor: number;

  constructor(options: ClockOptions) {
    this.mode = options.mode;
    this.speed = options.mode === 'manual' ? 0 : options.speed;
    this.realAnchor = options.realAnchor ?? Date.now();
    this.anchor = options.start ?? (options.mode === 'manual' ? DEFAULT_MANUAL_START : this.realAnchor);
  }

  now(): number {
    if (this.mode === 'manual') return this.anchor;
    return this.anchor + Math.floor((Date.now() - this.realAnchor) * this.speed);
  }

  /** Real milliseconds until the sandbox clock reaches `at` (Infinity on the manual clock). */
  realDelayUntil(at: number): number {
    if (this.mode === 'manual') return Infinity;
    return Math.max(0, Math.ceil((at - this.now()) / this.speed));
  }

  /** Manual clock only: put the time back or forward (reset, snapshot restore). */
  reset(at: number): void {
    if (this.mode === 'manual') this.anchor = at;
  }

  /** Manual clock only: set the time. Time never moves backwards. */
  set(at: number): void {
    if (this.mode !== 'manual') throw new Error('only the manual clock can be moved');
    this.anchor = Math.max(this.anchor, at);
  }
}
