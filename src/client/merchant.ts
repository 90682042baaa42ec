import { InvalidArgumentError, Option } from 'commander';
import { clientOf, EXIT, exit, runVerb, verbCommand } from './http.js';

/**
 * `payout-sandbox merchant create [--balance N] [--clock manual|real] [--clock-start ISO]
 * [--name …] [--email …] [--webhook-url URL] [--webhook-version v1|v2] [--env | --json]`: a merchant
 * of its own in a running sandbox. `--env` prints `KEY=value` lines for `>> "$GITHUB_ENV"`, a
 * `.env` file, or a shell (`set -a; . ./sandbox.env; set +a`).
 */

function rupees(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be an amount in rupees, 0 or above.');
  return n;
}

interface Created {
  merchant_id: string;
  name: string;
  email: string;
  api_key: string;
  api_secret: string;
  access_token: string;
  account_no: string;
  balance: number;
  webhook_url: string | null;
  webhook_secret: string;
  headers: Record<string, string>;
  clock?: { now: string; mode: string; follows_sandbox_clock: boolean };
}

/** A value as a KEY=value line takes it: bare when it is plain (as GITHUB_ENV wants), else single-quoted for a shell. */
function envValue(v: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]*$/.test(v) ? v : `'${v.replace(/'/g, "'\\''")}'`;
}

/** The merchant as KEY=value lines. */
export function envLines(url: string, m: Created): string {
  const vars: Array<[string, string]> = [
    ['SANDBOX_URL', url],
    ['SANDBOX_MERCHANT_ID', m.merchant_id],
    ['SANDBOX_MERCHANT_EMAIL', m.email],
    ['SANDBOX_API_KEY', m.api_key],
    ['SANDBOX_API_SECRET', m.api_secret],
    ['SANDBOX_ACCOUNT_NO', m.account_no],
    ['SANDBOX_ACCESS_TOKEN', m.access_token],
  ];
  return vars.map(([k, v]) => `${k}=${envValue(v)}\n`).join('');
}

function createdText(url: string, m: Created): string {
  return [
    `Merchant ${m.merchant_id} created (${m.name}, ${m.email}) in the sandbox at ${url}`,
    `  account       ${m.account_no}  balance ${m.balance}`,
    `  headers       x-merchant-email: ${m.email}  x-api-key: ${m.api_key}  x-api-secret: ${m.api_secret}`,
    `  access token  ${m.access_token}`,
    `  webhooks      ${m.webhook_url ?? '(no URL: payout-sandbox listen, or PATCH its webhook_url)'}; secret ${m.webhook_secret}`,
    ...(m.clock ? [`  clock         ${m.clock.follows_sandbox_clock ? "the sandbox's" : `its own, ${m.clock.mode}`}: ${m.clock.now}`] : []),
    '',
  ].join('\n');
}

export function main(argv: string[]): Promise<never> {
  if (argv[3] !== 'create') {
    const what = argv[3] === undefined || argv[3].startsWith('-') ? 'name what to do' : `unknown: merchant ${argv[3]}`;
    process.stderr.write(
      `payout-sandbox merchant: ${what}. The merchant verbs are:\n  merchant create   a merchant of its own (--balance, --clock manual, --env)\n`,
    );
    return exit(argv[3] === '--help' || argv[3] === '-h' ? 0 : EXIT.usage);
  }
  const program = verbCommand('merchant create', 'Creates a merchant of its own in a running sandbox and prints its credentials.')
    .addOption(new Option('--balance <rupees>', "its account's opening balance (default ₹10,00,000)").argParser(rupees))
    .addOption(new Option('--clock <mode>', 'a clock of its own: manual (advance it alone) or real').choices(['manual', 'real']))
    .option('--clock-start <iso>', "its own clock's start (default: the sandbox's now)")
    .option('--name <name>', 'its name')
    .option('--email <email>', 'its e-mail (its x-merchant-email)')
    .option('--webhook-url <url>', 'where its webhooks go')
    .addOption(new Option('--webhook-version <version>', 'the webhook body, whatever the initialize version').choices(['v1', 'v2']))
    .addOption(new Option('--env', 'print KEY=value lines (SANDBOX_URL, SANDBOX_MERCHANT_ID, …)').conflicts('json'))
    .option('--json', "print the sandbox's answer as JSON");
  return runVerb(argv, 2, program, async (o) => {
    const client = clientOf(o as { url: string; adminToken?: string });
    const body: Record<string, unknown> = {};
    if (o.balance !== undefined) body.balance = o.balance;
    if (o.name !== undefined) body.name = o.name;
    if (o.email !== undefined) body.email = o.email;
    if (o.webhookUrl !== undefined) body.webhook_url = o.webhookUrl;
    if (o.webhookVersion !== undefined) body.webhook_version = o.webhookVersion;
    if (o.clock !== undefined || o.clockStart !== undefined) body.clock = { mode: o.clock, start: o.clockStart };
    const m = await client.control<Created>('POST', '/merchants', body);
    process.stdout.write(o.env ? envLines(client.url, m) : o.json ? `${JSON.stringify(m, null, 2)}\n` : createdText(client.url, m));
    return 0;
  });
}
