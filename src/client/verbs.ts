/**
 * The verbs of the `payout-sandbox` command (`payout-sandbox <verb> [options]`): without one it
 * starts the server. Each verb is its own module, loaded only when asked for, so starting the
 * server loads none of them.
 */
export interface Verb {
  summary: string;
  run(argv: string[]): Promise<void>;
}

export const VERBS: Record<string, Verb> = {
  'probe-webhook': {
    summary: 'probe a webhook receiver with the fixed battery of signed deliveries (no sandbox needed)',
    run: async (argv) => (await import('./probe-webhook.js')).main(argv),
  },
  wait: {
    summary: 'wait until a sandbox answers its health check (exit 0), or time out (exit 1)',
    run: async (argv) => (await import('./wait.js')).main(argv),
  },
  listen: {
    summary: "receive a merchant's webhooks from a running sandbox and forward them to a local URL",
    run: async (argv) => (await import('./listen.js')).main(argv),
  },
  tail: {
    summary: "follow a running sandbox's request journal (method, path, status, rule, latency, ref_id)",
    run: async (argv) => (await import('./tail.js')).main(argv),
  },
  trigger: {
    summary: 'make a payout that takes a named outcome (payout.reversed, …; --list lists them)',
    run: async (argv) => (await import('./trigger.js')).main(argv),
  },
  advance: {
    summary: "move a running sandbox's manual clock (or a merchant's) on by a duration",
    run: async (argv) => (await import('./admin-verbs.js')).advance(argv),
  },
  redeliver: {
    summary: 'send a webhook delivery again now',
    run: async (argv) => (await import('./admin-verbs.js')).redeliver(argv),
  },
  coverage: {
    summary: "print a running sandbox's behaviour coverage (exit 3 below --min)",
    run: async (argv) => (await import('./admin-verbs.js')).coverage(argv),
  },
  review: {
    summary: "print a running sandbox's integration review (exit 4 at or above --fail-on)",
    run: async (argv) => (await import('./admin-verbs.js')).review(argv),
  },
  merchant: {
    summary: 'merchant create: a merchant of its own in a running sandbox (--env for KEY=value lines)',
    run: async (argv) => (await import('./merchant.js')).main(argv),
  },
  mcp: {
    summary: 'a Model Context Protocol server (stdio) that lets a coding agent drive a running sandbox',
    run: async (argv) => (await import('./mcp.js')).main(argv),
  },
  trace: {
    summary: "write a merchant's trace (JSON for show-trace, or HAR) from a running sandbox to a file",
    run: async (argv) => (await import('./trace.js')).main(argv),
  },
  'show-trace': {
    summary: 'open a trace file in the dashboard, read-only, on 127.0.0.1 (no sandbox needed)',
    run: async (argv) => (await import('./show-trace.js')).main(argv),
  },
  record: {
    summary: 'a recording proxy: forwards every request to the real service (--upstream) and writes the exchanges, scrubbed, to a HAR file',
    run: async (argv) => (await import('../fidelity/record.js')).main(argv),
  },
  verify: {
    summary: 'replay a recorded session (HAR) against a sandbox and report every difference of behaviour (exit 5 with one)',
    run: async (argv) => (await import('../fidelity/verify.js')).main(argv),
  },
};

/** A first argument that is neither an option nor a verb: a typo of a verb. */
export function unknownVerb(arg: string | undefined): string | null {
  if (arg === undefined || arg.startsWith('-') || Object.hasOwn(VERBS, arg)) return null;
  const list = Object.entries(VERBS)
    .map(([name, v]) => `  ${name.padEnd(16)} ${v.summary}`)
    .join('\n');
  return `unknown verb "${arg}". Without a verb, payout-sandbox starts the sandbox; the verbs are:\n${list}\n(run payout-sandbox --help for the server's options)`;
}
