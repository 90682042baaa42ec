import type { NextFunction, Request, Response } from 'express';
import type { Clock } from '../clock.js';
import { toIso } from '../time.js';

export interface RefusedTransition {
  id: string;
  from: string;
  to: string;
  reason: string;
}

export interface JournalEntry {
  request_id: string;
  method: string;
  path: string;
  merchant_id: string | null;
  /** Null when the connection was closed with no answer. */
  status: number | null;
  at: string;
  latency_ms: number;
  /** The scenario rule that decided the request (`X-Sandbox-Rule`), if any. */
  rule: string | null;
  refused_transitions: RefusedTransition[];
}

/** Notes a refused transition on the request's journal entry (the explain of `GET /__sandbox/requests/:id`). */
export function noteRefusal(res: Response, refusal: RefusedTransition): void {
  ((res.locals.refusals as RefusedTransition[] | undefined) ?? (res.locals.refusals = [])).push(refusal);
}

/** The request journal: the last `capacity` requests, by id and in order. */
export class Journal {
  private readonly entries = new Map<string, JournalEntry>();

  constructor(
    private readonly clock: Clock,
    readonly capacity = 1000,
  ) {}

  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      if (req.path.startsWith('/__sandbox/requests')) return next();
      const started = performance.now();
      const at = toIso(this.clock.now());
      res.once('close', () => {
        this.add({
          request_id: String(req.id),
          method: req.method,
          path: req.path,
          merchant_id: (res.locals.merchant as { merchant_id?: string } | undefined)?.merchant_id ?? null,
          status: res.headersSent ? res.statusCode : null,
          at,
          latency_ms: Math.round((performance.now() - started) * 100) / 100,
          rule: (res.getHeader('X-Sandbox-Rule') as string | undefined) ?? null,
          refused_transitions: (res.locals.refusals as RefusedTransition[] | undefined) ?? [],
        });
      });
      next();
    };
  }

  private add(entry: JournalEntry): void {
    this.entries.set(entry.request_id, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  get(id: string): JournalEntry | undefined {
    return this.entries.get(id);
  }

  /** Newest first. */
  list(limit = 100): JournalEntry[] {
    return [...this.entries.values()].reverse().slice(0, limit);
  }

  clear(): void {
    this.entries.clear();
  }
}
