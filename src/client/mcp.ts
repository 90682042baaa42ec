import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { openApiDocument } from '../contract/openapi.js';
import { DURATION_FORMS, parseDuration } from '../duration.js';
import { PAYOUT_STATUSES } from '../vocab.js';
import { clientOf, runVerb, type SandboxClient, VerbError, verbCommand } from './http.js';
import { findOutcome, merchantOf, type Outcome, outcomes, trigger } from './outcomes.js';

/**
 * `payout-sandbox mcp [--url URL] [--admin-token T]`: a Model Context Protocol server over stdio
 * (the official SDK) through which a coding agent drives a running sandbox: makes merchants,
 * payouts that take a named outcome, moves the clock, forces statuses, explains requests, reads
 * coverage gaps and review findings, probes a receiver. Each tool is one or two control-API calls
 * (docs/companion.md). Nothing but MCP messages goes to stdout; the sandbox need not be up when
 * it starts (a tool call says when it cannot be reached).
 */

const INSTRUCTIONS = `payout-sandbox is a local, stateful sandbox of a payout provider's merchant API (payouts, beneficiaries, verification, checkout status), with webhooks. Use it to exercise the failure paths of the integration you are writing against real behaviour instead of guessing.
Typical flow: create_merchant (credentials for the emulated API: put them in the code or test under work) → list_outcomes → initialize_payout with an outcome (payout.reversed, payout.unknown, payout.rejected.<CODE>, payout.fault.500_after_created, …) → advance_clock (on a manual clock, time moves only when advanced) → get_payout (record, timeline, webhook deliveries). When a request of the code under test surprises you, explain_request with its X-Request-Id response header. coverage_gaps says which provider behaviours the integration has not been shown yet (and how to show each); review_findings says what it handled wrongly (double payouts, ignored Retry-After, forged webhooks accepted…), with the fix. Money is in rupees; times are IST.`;

type Args = Record<string, unknown>;

const json = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] });

/** A tool's work, its refusals (unreachable sandbox, an unknown id, a bad outcome) as tool errors the agent reads. */
function tool<A extends Args>(work: (args: A) => Promise<unknown>): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return json(await work(args));
    } catch (err) {
      const message = err instanceof VerbError ? err.message : `unexpected: ${(err as Error).message ?? String(err)}`;
      return { isError: true, content: [{ type: 'text', text: message }] };
    }
  };
}

const merchantPath = (id: string) => `/merchants/${encodeURIComponent(id)}`;

/** The outcome and amount an initialize_payout asks for: an outcome's name (or rule, or magic amount), or an amount alone. */
function chosen(scenario: string, list: Outcome[], outcome: string | undefined, amount: number | undefined): { outcome: Outcome; amount?: number } {
  if (outcome === undefined) {
    if (amount === undefined) throw new VerbError('give an outcome (see list_outcomes) or an amount.');
    const magic = list.find((o) => !o.anyAmount && o.amount === amount);
    const any = list.find((o) => o.anyAmount);
    if (magic) return { outcome: magic };
    if (!any) throw new VerbError(`${amount} is no magic amount of scenario ${scenario}, and it has no default timeline: give an outcome.`);
    return { outcome: any, amount };
  }
  const found = findOutcome(scenario, list, outcome);
  if (amount !== undefined && !found.anyAmount && amount !== found.amount) {
    throw new VerbError(`${found.name} is made by its amount, ${found.amount.toFixed(2)}: leave amount out, or give another outcome.`);
  }
  return { outcome: found, amount };
}

/** Merchants and payouts: create a merchant, the outcomes, a payout that takes one, a payout as it is. */
function payoutTools(server: McpServer, client: SandboxClient): void {
  server.registerTool(
    'create_merchant',
    {
      title: 'Create a merchant',
      description:
        "Creates an isolated merchant in the sandbox with one funded ACTIVE account (VAN) and answers its credentials: the three headers for the emulated API (x-merchant-email, x-api-key, x-api-secret), account_no (debit_from for payouts), access_token (checkout API), webhook_secret, and `env` (SANDBOX_* lines for a .env file). Give it a clock of its own with clock_mode 'manual' to move its time alone. Call this first; use merchant_id with the other tools.",
      inputSchema: {
        balance: z.number().min(0).optional().describe('Opening balance of its account in rupees (default 1000000).'),
        name: z.string().min(1).max(100).optional().describe('Its name.'),
        email: z.string().email().optional().describe('Its e-mail: the x-merchant-email header (default: generated).'),
        webhook_url: z.string().url().optional().describe('Where its webhooks are POSTed (default: none, or the sandbox --webhook-url).'),
        webhook_version: z.enum(['v1', 'v2']).optional().describe('Webhook body version, whatever the initialize version.'),
        clock_mode: z
          .enum(['manual', 'real'])
          .optional()
          .describe("A clock of its own: 'manual' moves only when advance_clock is called with its merchant_id."),
      },
    },
    tool(async (a) => {
      const body: Args = {};
      for (const k of ['balance', 'name', 'email', 'webhook_url', 'webhook_version'] as const) if (a[k] !== undefined) body[k] = a[k];
      if (a.clock_mode !== undefined) body.clock = { mode: a.clock_mode };
      const m = await client.control<Record<string, string>>('POST', '/merchants', body);
      const env = {
        SANDBOX_URL: client.url,
        SANDBOX_MERCHANT_ID: m.merchant_id,
        SANDBOX_MERCHANT_EMAIL: m.email,
        SANDBOX_API_KEY: m.api_key,
        SANDBOX_API_SECRET: m.api_secret,
        SANDBOX_ACCOUNT_NO: m.account_no,
        SANDBOX_ACCESS_TOKEN: m.access_token,
      };
      return { ...m, api_base_url: client.url, env };
    }),
  );

  server.registerTool(
    'list_outcomes',
    {
      title: 'List payout outcomes',
      description:
        'Lists the payout outcomes the scenario in force can produce, by name, with the magic amount that triggers each and what happens: payout.success (the default timeline, any amount), payout.failed, payout.unknown, payout.reversed (Success then Failed: a reversal), payout.rejected.<CODE> (refused at initialize with that error code), payout.fault.500_after_created (HTTP 500 although the payout was made), … Pass a name to initialize_payout; or use the amount in the code under test to make the sandbox answer that way.',
      inputSchema: {},
    },
    tool(async () => outcomes(client)),
  );

  server.registerTool(
    'initialize_payout',
    {
      title: 'Initialize a payout that takes an outcome',
      description:
        "Makes a payout through the emulated API (initialize payout) with the merchant's credentials, from its first ACTIVE account to a test beneficiary, so that it takes the given outcome. Give `outcome` (a name from list_outcomes, e.g. payout.reversed) or `amount` (a magic amount such as 2002.05, or any amount for the default timeline). Answers how initialize was answered (HTTP status and body, or the transport fault), the ref_id and the payout with its timeline (taken and scheduled steps). Follow with advance_clock to move through the timeline, then get_payout.",
      inputSchema: {
        merchant_id: z.string().min(1).describe('The merchant that pays (from create_merchant).'),
        outcome: z.string().min(1).optional().describe('An outcome name from list_outcomes (or its rule name or magic amount as text).'),
        amount: z.number().positive().optional().describe('Rupees: a magic amount, or any amount with payout.success / without an outcome.'),
        api_version: z.enum(['v1', 'v2']).optional().describe('Which initialize endpoint (and so which webhook body); default v2.'),
      },
    },
    tool(async (a) => {
      const { scenario, outcomes: list } = await outcomes(client);
      const pick = chosen(scenario, list, a.outcome as string | undefined, a.amount as number | undefined);
      const merchant = await merchantOf(client, String(a.merchant_id));
      return trigger(client, merchant, pick.outcome, { amount: pick.amount, version: a.api_version as 'v1' | 'v2' | undefined });
    }),
  );

  server.registerTool(
    'get_payout',
    {
      title: 'Get a payout',
      description:
        'One payout by its ref_id: the record as the status check answers it (status, bank_res_msg, amount, fees, tax, …), the scenario rule that decided it, its timeline (steps taken with their times, steps still scheduled), whether it was reversed, its refund once it failed, how initialize was answered when a fault answered it, and every webhook delivery with each attempt (status, error, latency).',
      inputSchema: { ref_id: z.string().min(1).describe('The payout ref_id (10 digits) initialize answered.') },
    },
    tool(async (a) => client.control('GET', `/payouts/${encodeURIComponent(String(a.ref_id))}`)),
  );
}

/** Time and the bank: the clock moved on, a status forced. */
function clockTools(server: McpServer, client: SandboxClient): void {
  server.registerTool(
    'advance_clock',
    {
      title: 'Advance the manual clock',
      description:
        "Moves the sandbox's manual clock on by a duration (e.g. '5s', '30m', '1h', '2h'), running every due status change and webhook delivery in time order; with merchant_id, only that merchant's own clock (a merchant created with clock_mode 'manual'). Then, unless settle_webhooks is false, waits for the webhook attempts it started. Answers the clock. Refused when the sandbox runs a real clock.",
      inputSchema: {
        by: z
          .string()
          .refine((s) => (parseDuration(s) ?? 0) > 0, `must be ${DURATION_FORMS}`)
          .describe('How far: 500ms, 5s, 30m, 1h, 1d, 1h30m or PT1H30M.'),
        merchant_id: z.string().min(1).optional().describe("Move only this merchant's own clock."),
        settle_webhooks: z.boolean().optional().describe('Wait for the webhook attempts it started (default true).'),
      },
    },
    tool(async (a) => {
      const prefix = a.merchant_id === undefined ? '' : merchantPath(String(a.merchant_id));
      const clock = await client.control('POST', `${prefix}/clock/advance`, { by: a.by });
      const settled = a.settle_webhooks === false ? null : await client.control('POST', '/webhooks/settle');
      return { clock, webhooks: settled };
    }),
  );

  server.registerTool(
    'force_payout_status',
    {
      title: "Force a payout's status",
      description:
        'Forces a payout to a status now, as the bank would (its webhook is sent and a Failed payout refunded, as usual); the scripted steps still to come are dropped. Allowed transitions: Failed is final; from Success only Failed (a reversal); NEW to any other; Pending and Unknown to any but NEW. A refused transition is an error saying why.',
      inputSchema: {
        ref_id: z.string().min(1).describe('The payout ref_id.'),
        status: z.enum(PAYOUT_STATUSES).describe('The status to force.'),
        bank_res_msg: z.string().max(200).optional().describe("The bank's message to show (e.g. 'Account closed')."),
      },
    },
    tool(async (a) => {
      const body: Args = { status: a.status };
      if (a.bank_res_msg !== undefined) body.bank_res_msg = a.bank_res_msg;
      return client.control('POST', `/payouts/${encodeURIComponent(String(a.ref_id))}/status`, body);
    }),
  );
}

/** What the sandbox saw: a request explained, coverage gaps, review findings, a receiver probed. */
function insightTools(server: McpServer, client: SandboxClient): void {
  server.registerTool(
    'explain_request',
    {
      title: 'Explain a request',
      description:
        'Explains one request the code under test made to the emulated API, by the X-Request-Id header of its response: method, path, merchant, HTTP status, the scenario rule that decided it, the payout ref_id it touched, the error code and message of a refusal, why a 401 was answered (auth_reason), refused status transitions and latency. Use it when an answer surprised you.',
      inputSchema: { request_id: z.string().min(1).describe('The X-Request-Id response header of the request.') },
    },
    tool(async (a) => client.control('GET', `/requests/${encodeURIComponent(String(a.request_id))}`)),
  );

  server.registerTool(
    'coverage_gaps',
    {
      title: 'Coverage gaps',
      description:
        'Which provider behaviours (business errors, payout statuses and the reversal, transport faults, rate limits, webhook retries, duplicates, bad signatures, …) the integration has not been shown yet, each with `how` to show it (a magic amount or a call); and the summary (covered, total, percent). Of one merchant, or of every merchant added up. Write tests for the gaps.',
      inputSchema: {
        merchant_id: z.string().min(1).optional().describe("One merchant's coverage (default: every merchant)."),
        ignore: z.array(z.string().min(1)).optional().describe('Coverage groups to leave out (e.g. verification, checkout).'),
      },
    },
    tool(async (a) => {
      const base = a.merchant_id === undefined ? '' : merchantPath(String(a.merchant_id));
      const ignore = Array.isArray(a.ignore) && a.ignore.length > 0 ? `&ignore=${encodeURIComponent(a.ignore.join(','))}` : '';
      const r = await client.control<{ summary: unknown; items: Array<{ hits: number }> }>('GET', `${base}/coverage?format=json${ignore}`);
      return { summary: r.summary, uncovered: r.items.filter((i) => i.hits === 0) };
    }),
  );

  server.registerTool(
    'review_findings',
    {
      title: 'Integration review findings',
      description:
        "The integration review: what the integration handled wrongly, judged from every request, answer and webhook reply the sandbox saw — a payout sent twice after a time-out, 'not found' or Unknown; Retry-After ignored; polling over the limit; forged or stale webhooks accepted; outcomes never observed; an unhealthy receiver. Each finding has a severity (high, medium, low), detail, the fix (`advice`) and evidence (request ids for explain_request, ref_ids for get_payout).",
      inputSchema: { merchant_id: z.string().min(1).optional().describe("One merchant's review (default: every merchant's findings).") },
    },
    tool(async (a) => client.control('GET', a.merchant_id === undefined ? '/review' : `${merchantPath(String(a.merchant_id))}/review`)),
  );

  server.registerTool(
    'probe_webhook',
    {
      title: 'Probe a webhook receiver',
      description:
        "Sends the merchant's webhook receiver (its webhook_url, or `url`) a fixed battery of signed deliveries and says which checks it passed: a valid delivery acknowledged (2xx), a forged signature refused (4xx), a stale timestamp refused (4xx), a duplicate acknowledged again, an unknown field tolerated, an answer within the time-out. `ok` is true only when all pass; a failed check's `detail` says what to fix. The receiver must be reachable from the sandbox.",
      inputSchema: {
        merchant_id: z.string().min(1).describe('The merchant whose receiver (and webhook secret) to use.'),
        url: z.string().url().optional().describe("The receiver's URL (default: the merchant's webhook_url)."),
      },
    },
    tool(async (a) => client.control('POST', `${merchantPath(String(a.merchant_id))}/webhooks/probe`, a.url === undefined ? {} : { url: a.url })),
  );
}

/** The server with every tool: name, a description an agent can act on, input schema, and what it does. */
export function mcpServer(client: SandboxClient): McpServer {
  // The package's version, as the emulated API's OpenAPI document states it.
  const { version } = (openApiDocument() as { info: { version: string } }).info;
  const server = new McpServer({ name: 'payout-sandbox', version }, { instructions: INSTRUCTIONS });
  payoutTools(server, client);
  clockTools(server, client);
  insightTools(server, client);
  return server;
}

export function main(argv: string[]): Promise<never> {
  const program = verbCommand('mcp', 'A Model Context Protocol server over stdio for coding agents, driving the sandbox at --url.');
  return runVerb(argv, 1, program, async (o) => {
    const client = clientOf(o as { url: string; adminToken?: string });
    const server = mcpServer(client);
    await server.connect(new StdioServerTransport());
    // Until the client closes the connection, or stdin.
    const closed = new Promise<void>((resolve) => {
      server.server.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
    });
    process.stderr.write(`payout-sandbox mcp: serving MCP on stdio for the sandbox at ${client.url}\n`);
    await closed;
    await server.close().catch(() => undefined);
    return 0;
  });
}
