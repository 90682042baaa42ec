import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** An address and port the sandbox listens on. */
export interface Bound {
  address: string;
  port: number;
}

const WILDCARDS = new Set(['0.0.0.0', '::']);

/** `::ffff:127.0.0.1` and `::ffff:7f00:1` (how a URL writes it) → `127.0.0.1`; lower case; no brackets. */
export function plain(address: string): string {
  const a = address.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (a.startsWith('::ffff:') && isIP(a.slice(7)) === 4) return a.slice(7);
  const hex = /^(?:::|(?:0{1,4}:){5})ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (hex) {
    const hi = Number.parseInt(hex[1] as string, 16);
    const lo = Number.parseInt(hex[2] as string, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return a;
}

const isLoopbackAddress = (a: string) => a === '::1' || /^127\./.test(a);

/** Every address of this machine (loopback included), plain. */
function machineAddresses(): Set<string> {
  const out = new Set<string>(['127.0.0.1', '::1']);
  for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) out.add(plain(i.address));
  return out;
}

/**
 * Where the sandbox itself listens, so that it never sends a request to itself: a webhook URL (a
 * merchant's, --webhook-url, a probe's, a listener's forward target) that reaches one of its own
 * ports would have its own control API act on its deliveries (`/__sandbox/reset` as a webhook
 * resets the sandbox). Checked when such a URL is set, and again before every attempt (a name
 * can resolve differently later). Before the sandbox listens (supertest) nothing is refused here;
 * a delivery that reaches the sandbox anyway is refused by the app (see `inFlight` in the outbox).
 */
export class SelfAddresses {
  private bound: Bound[] = [];

  /** The sandbox now listens on these (the CLI and startSandbox() tell it once listening). */
  listening(bound: Bound[]): void {
    this.bound = bound.map((b) => ({ address: plain(b.address), port: b.port }));
  }

  get ports(): number[] {
    return this.bound.map((b) => b.port);
  }

  /** Whether a connection to `address:port` reaches one of the sandbox's listeners. */
  private reaches(address: string, port: number): boolean {
    const a = plain(address);
    const local = WILDCARDS.has(a) || isLoopbackAddress(a) || machineAddresses().has(a);
    if (!local) return false;
    return this.bound.some(
      (b) => b.port === port && (WILDCARDS.has(b.address) || b.address === a || WILDCARDS.has(a) || (isLoopbackAddress(b.address) && isLoopbackAddress(a))),
    );
  }

  /**
   * Why `url` would reach the sandbox itself (naming the address and port), or null when it does
   * not. A name is resolved (every address it has); one that does not resolve is not refused
   * here (its delivery fails on its own, with the resolver's reason).
   */
  async problem(url: string): Promise<string | null> {
    if (this.bound.length === 0) return null;
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return null;
    }
    const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
    if (!this.ports.includes(port)) return null;
    const host = plain(target.hostname);
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await lookup(host, { all: true })).map((a) => a.address);
      } catch {
        return null;
      }
    }
    const hit = addresses.find((a) => this.reaches(a, port));
    if (hit === undefined) return null;
    const via = isIP(host) ? '' : ` (${target.hostname} resolves to ${hit})`;
    return `${target.host}${via} is this sandbox's own address and port: a webhook sent there would reach its own API (its control API, reset included), so the sandbox never calls itself`;
  }
}
