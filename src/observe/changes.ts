/** What changed, as the dashboard's event stream tells it: the kinds of records (and `clock`). */
export interface ChangeEvent {
  kinds: string[];
}

/**
 * Change notifications for live views (the dashboard's server-sent events): every record change
 * and clock move is noted; listeners hear them at most every 100 ms, gathered, so a burst of
 * changes (an advance over 10,000 items) is one event, and nothing is done when nobody listens.
 */
export class ChangeFeed {
  private readonly listeners = new Set<(e: ChangeEvent) => void>();
  private readonly enders = new Map<(e: ChangeEvent) => void, () => void>();
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  note(kind: string): void {
    if (this.listeners.size === 0) return;
    this.pending.add(kind);
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), 100);
    this.timer.unref();
  }

  /** Adds a listener (`onEnd`: called when the feed closes, at shutdown); returns how to remove it. */
  listen(listener: (e: ChangeEvent) => void, onEnd: () => void = () => undefined): () => void {
    this.listeners.add(listener);
    this.enders.set(listener, onEnd);
    return () => {
      this.listeners.delete(listener);
      this.enders.delete(listener);
    };
  }

  /** Ends every stream (the sandbox is stopping: an open event stream must not hold the stop up). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const enders = [...this.enders.values()];
    this.listeners.clear();
    this.enders.clear();
    for (const end of enders) end();
  }

  private flush(): void {
    this.timer = null;
    const event = { kinds: [...this.pending].sort() };
    this.pending = new Set();
    for (const l of this.listeners) l(event);
  }
}
