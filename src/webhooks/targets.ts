/**
 * The form of every webhook URL a user gives (a merchant's `webhook_url`, `--webhook-url`, a
 * probe's `url`, a listener's `forward_to`, `probe-webhook --url`): http:// or https://, then no
 * white space; and what a refusal of that form says.
 */
export const HTTP_URL_PATTERN = '^https?://\\S+$';
export const HTTP_URL_MESSAGE = 'must be an http or https URL, e.g. http://127.0.0.1:3000/hooks.';
const HTTP_URL = new RegExp(HTTP_URL_PATTERN);
export const isHttpUrl = (url: string): boolean => HTTP_URL.test(url);

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

/**
 * Why a webhook URL can never be sent to (null when it can): not an http(s) URL, port 0 (node
 * would take it for the scheme's default port, which is not the URL's), or credentials
 * (`user:password@`, which would go out as Basic authorization). Checked where a URL is set (a
 * 400, or exit 2 for --webhook-url) and again before each attempt. The URL itself is not repeated:
 * it may hold a password.
 */
export function unsendable(url: string | URL): string | null {
  let target: URL;
  try {
    target = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return 'not a URL';
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return `not an http(s) URL: ${target.protocol}`;
  if (target.port === '0') return 'bad port: 0';
  if (target.username !== '' || target.password !== '') return 'a URL with credentials (user:password@) is not sent to';
  return null;
}
