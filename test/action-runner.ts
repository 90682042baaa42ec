import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { useTempDir } from './helpers.js';

/**
 * The GitHub runner, as far as action.yml's JavaScript action meets it: every declared input as
 * INPUT_<NAME> (upper case, hyphens kept) with its default when not given, a fresh
 * $GITHUB_OUTPUT, $GITHUB_STATE and $GITHUB_STEP_SUMMARY file per step, `node <main>` then later
 * `node <post>` in the workspace, the state the main step saved handed to the post step as
 * STATE_<name> variables.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ACTION = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string; post: string };
};

export const ACTION_YML = ACTION;

/**
 * A checkout of the action as `uses:` gets it, in `dir`: the action's files, and either the CLI
 * (bin/ and dist/cli.bundle.js) or only the standalone executable, so a test chooses which the
 * action runs.
 */
export function actionCheckout(dir: string, runs: 'node' | 'executable', executable?: string): string {
  const checkout = mkdtempSync(join(dir, 'action-checkout-'));
  mkdirSync(join(checkout, 'action'));
  mkdirSync(join(checkout, 'dist'));
  for (const f of readdirSync(join(ROOT, 'action'))) copyFileSync(join(ROOT, 'action', f), join(checkout, 'action', f));
  copyFileSync(join(ROOT, 'action.yml'), join(checkout, 'action.yml'));
  writeFileSync(join(checkout, 'package.json'), readFileSync(join(ROOT, 'package.json')));
  if (runs === 'node') {
    mkdirSync(join(checkout, 'bin'));
    copyFileSync(join(ROOT, 'bin/payout-sandbox.js'), join(checkout, 'bin/payout-sandbox.js'));
    symlinkSync(join(ROOT, 'dist/cli.bundle.js'), join(checkout, 'dist/cli.bundle.js'));
  } else {
    symlinkSync(executable as string, join(checkout, `dist/payout-sandbox-${process.platform}-${process.arch}`));
  }
  return checkout;
}

/** The name=value and name<<DELIMITER … DELIMITER entries of a runner file. */
export function parseRunnerFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2], i + 1);
      out[heredoc[1]] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (lines[i].includes('=')) {
      out[lines[i].slice(0, lines[i].indexOf('='))] = lines[i].slice(lines[i].indexOf('=') + 1);
    }
  }
  return out;
}

export interface StepResult {
  code: number | null;
  out: string;
  outputs: Record<string, string>;
  state: Record<string, string>;
  summary: string;
}

let steps = 0;

/** Runs `main` or `post` of the checkout as the runner does, with the inputs given and (for post) the state main saved. */
export function runStep(
  checkout: string,
  step: 'main' | 'post',
  work: string,
  inputs: Record<string, string>,
  state: Record<string, string> = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<StepResult> {
  steps += 1;
  const files = {
    GITHUB_OUTPUT: join(work, `output-${steps}`),
    GITHUB_STATE: join(work, `state-${steps}`),
    GITHUB_STEP_SUMMARY: join(work, `summary-${steps}`),
  };
  for (const f of Object.values(files)) writeFileSync(f, '');
  const stepEnv: NodeJS.ProcessEnv = { ...env, ...files, RUNNER_TEMP: work, GITHUB_WORKSPACE: work, GITHUB_ACTIONS: 'true' };
  for (const [name, spec] of Object.entries(ACTION.inputs)) stepEnv[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = inputs[name] ?? spec.default ?? '';
  for (const [name, value] of Object.entries(state)) stepEnv[`STATE_${name}`] = value;
  const proc = spawn(process.execPath, [join(checkout, ACTION.runs[step])], { cwd: work, env: stepEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => {
    proc.once('exit', (code) =>
      resolve({
        code,
        out,
        outputs: parseRunnerFile(readFileSync(files.GITHUB_OUTPUT, 'utf8')),
        state: parseRunnerFile(readFileSync(files.GITHUB_STATE, 'utf8')),
        summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'),
      }),
    );
  });
}

/**
 * What the runner does at the end of a job, for tests that start sandboxes through the action: the
 * pids pushed to `started` are killed after each test (no sandbox outlives it), with a temp dir.
 */
export function useStartedSandboxes(): { started: number[]; dir: () => string } {
  const started: number[] = [];
  const dir = useTempDir(() => {
    for (const pid of started.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already stopped.
      }
    }
  });
  return { started, dir };
}
