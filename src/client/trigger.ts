import { InvalidArgumentError, Option } from 'commander';
import { clientOf, EXIT, runVerb, VerbError, verbCommand } from './http.js';
import { findOutcome, merchantOf, outcomes, outcomeTable, type Triggered, trigger } from './outcomes.js';

/**
 * `payout-sandbox trigger <outcome> --merchant ID [--amount N] [--version v1|v2] [--json]`: a
 * payout that takes a named outcome of the scenario's magic values, made through the emulated
 * API with the merchant's credentials; prints its ref_id and timeline. `trigger --list` lists
 * the outcomes.
 */

function rupees(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d{1,2})?$/.test(value.trim()) || !(n > 0)) throw new InvalidArgumentError('must be an amount in rupees above 0, with at most 2 decimals.');
  return n;
}

type Step = { status: string; at: string | null; bank_res_msg: string | null; after_polls?: number };

/** The payout as text: how initialize was answered, its ref_id, its timeline taken and scheduled. */
export function triggeredText(t: Triggered): string {
  const lines = [`${t.outcome} (rule ${t.rule}, amount ${t.amount.toFixed(2)}, client_ref_id ${t.client_ref_id})`];
  const answer = t.initialize.body as { message?: string; error?: { code?: string } } | null;
  const code = answer?.error?.code ? ` ${answer.error.code}` : '';
  const said = t.initialize.status === null ? t.initialize.error : `HTTP ${t.initialize.status}${code}${answer?.message ? `: ${answer.message}` : ''}`;
  lines.push(`initialize answered ${said}`);
  if (!t.payout) {
    lines.push('no payout was made');
    return `${lines.join('\n')}\n`;
  }
  const p = t.payout as { transaction: { status: string }; timeline: { taken: Step[]; scheduled: Step[] } };
  lines.push(`ref_id ${t.ref_id}  status ${p.transaction.status}`, 'timeline:');
  for (const s of p.timeline.taken) lines.push(`  taken      ${s.status.padEnd(8)} ${s.at ?? ''}  ${s.bank_res_msg ?? ''}`.trimEnd());
  for (const s of p.timeline.scheduled) {
    const when = s.at ?? `after ${s.after_polls} status check${s.after_polls === 1 ? '' : 's'}`;
    lines.push(`  scheduled  ${s.status.padEnd(8)} ${when}  ${s.bank_res_msg ?? ''}`.trimEnd());
  }
  return `${lines.join('\n')}\n`;
}

export function main(argv: string[]): Promise<never> {
  const program = verbCommand('trigger', "Makes a payout that takes a named outcome of the scenario's magic values, and prints its ref_id and timeline.")
    .argument('[outcome]', 'payout.success, payout.reversed, payout.rejected.<CODE>, … (a rule name or magic amount too)')
    .option('--list', 'list the outcomes and exit')
    .addOption(new Option('--merchant <id>', 'the merchant that pays').env('SANDBOX_MERCHANT_ID'))
    .addOption(new Option('--amount <rupees>', 'the amount, for an outcome any amount takes (payout.success)').argParser(rupees))
    .addOption(new Option('--version <version>', 'the initialize endpoint, and so the webhook body').choices(['v1', 'v2']).default('v2'))
    .option('--json', 'print the result as JSON');
  return runVerb(argv, 1, program, async (o, args) => {
    const client = clientOf(o as { url: string; adminToken?: string });
    const { scenario, outcomes: list } = await outcomes(client);
    if (o.list) {
      process.stdout.write(o.json ? `${JSON.stringify({ scenario, outcomes: list }, null, 2)}\n` : outcomeTable(scenario, list));
      return 0;
    }
    if (args[0] === undefined) throw new VerbError(`name an outcome.\n${outcomeTable(scenario, list)}`, EXIT.usage);
    const outcome = findOutcome(scenario, list, args[0]);
    const amount = o.amount as number | undefined;
    if (amount !== undefined && !outcome.anyAmount && amount !== outcome.amount) {
      throw new VerbError(`${outcome.name} is made by its amount, ${outcome.amount.toFixed(2)}: --amount cannot change it.`, EXIT.usage);
    }
    if (typeof o.merchant !== 'string') throw new VerbError('name the merchant that pays: --merchant ID (or SANDBOX_MERCHANT_ID).', EXIT.usage);
    const merchant = await merchantOf(client, o.merchant);
    const t = await trigger(client, merchant, outcome, { amount, version: o.version as 'v1' | 'v2' });
    process.stdout.write(o.json ? `${JSON.stringify(t, null, 2)}\n` : triggeredText(t));
    return 0;
  });
}
