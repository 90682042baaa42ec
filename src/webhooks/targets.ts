/**
 * Whether a webhook URL's host may be sent to: any when `allow` is null, else a host named in it
 * exactly, or under a `*.suffix` pattern (`*.internal.example` allows `a.internal.example`, not
 * `internal.example`). Host names compare without regard to case; IPv6 hosts without brackets.
 */
export function targetAllowed(url: string, allow: readonly string[] | null): boolean {
  if (allow === null) return true;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  } catch {
    return false;
  }
  return allow.some((pattern) => {
    const p = pattern.toLowerCase().replace(/^\[(.*)\]$/, '$1');
    return p.startsWith('*.') ? host.endsWith(p.slice(1)) && host.length > p.length - 1 : host === p;
  });
}
