import { writeFile } from 'node:fs/promises';
import { clientOf, runVerb, VerbError, verbCommand } from './http.js';

/**
 * `payout-sandbox trace --merchant ID -o FILE [--ref-id REF] [--har] [--url URL] [--admin-token T]`:
 * fetches a merchant's trace from a running sandbox (`GET /__sandbox/merchants/{id}/trace`) into
 * a file, as it was answered: JSON for `payout-sandbox show-trace`, or HAR 1.2 with `--har` (or
 * a FILE ending in `.har`). Exit 0 once written, 1 when the sandbox cannot be reached or refuses
 * (an unknown merchant), 2 for a bad option.
 */
export function main(argv: string[]): Promise<never> {
  const program = verbCommand('trace', "Writes a merchant's trace (docs/trace.md) from a running sandbox to a file: JSON for show-trace, or HAR.")
    .requiredOption('--merchant <id>', 'the merchant whose run it is')
    .requiredOption('-o, --output <file>', 'where to write it (a name ending in .har: HAR 1.2)')
    .option('--ref-id <ref>', 'only what concerns this payout')
    .option('--har', 'HAR 1.2 instead of the JSON trace');
  return runVerb(argv, 1, program, async (o) => {
    const client = clientOf(o as { url: string; adminToken?: string });
    const file = o.output as string;
    const har = o.har === true || file.toLowerCase().endsWith('.har');
    const query = new URLSearchParams({ ...(har ? { format: 'har' } : {}), ...(o.refId ? { ref_id: o.refId as string } : {}) });
    const text = await client.controlText(`/merchants/${encodeURIComponent(o.merchant as string)}/trace${query.size > 0 ? `?${query}` : ''}`);
    try {
      await writeFile(file, text);
    } catch (err) {
      throw new VerbError(`cannot write ${file} (${(err as Error).message})`);
    }
    const doc = JSON.parse(text) as { requests?: unknown[]; payouts?: unknown[]; deliveries?: unknown[]; log?: { entries: unknown[] } };
    const n = (list: unknown[] | undefined, one: string, many: string) => `${list?.length ?? 0} ${list?.length === 1 ? one : many}`;
    const what = har
      ? `HAR of ${n(doc.log?.entries, 'entry', 'entries')}`
      : `trace of ${n(doc.requests, 'request', 'requests')}, ${n(doc.payouts, 'payout', 'payouts')}, ${n(doc.deliveries, 'webhook delivery', 'webhook deliveries')}`;
    process.stdout.write(`${what} of merchant ${o.merchant as string} written to ${file}${har ? '' : ` (open it: payout-sandbox show-trace ${file})`}\n`);
    return 0;
  });
}
