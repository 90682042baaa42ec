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
};

/** A first argument that is neither an option nor a verb: a typo of a verb. */
export function unknownVerb(arg: string | undefined): string | null {
  if (arg === undefined || arg.startsWith('-') || Object.hasOwn(VERBS, arg)) return null;
  const list = Object.entries(VERBS)
    .map(([name, v]) => `  ${name.padEnd(16)} ${v.summary}`)
    .join('\n');
  return `unknown verb "${arg}". Without a verb, payout-sandbox starts the sandbox; the verbs are:\n${list}\n(run payout-sandbox --help for the server's options)`;
}
