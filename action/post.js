// The action's post step (the runner runs it at the end of the job, even after a failed step):
// puts the behaviour coverage and the integration review in the job summary, stops the sandbox
// with SIGTERM (so it writes --coverage-report and --review-report), waits for it to exit, and
// fails the step when a gate failed: exit 3 (coverage under coverage-min), 4 (a review finding
// at or above fail-on-review), or anything else that is not a clean stop. A step of the job may
// have stopped it already (kill -TERM on the pid output, to upload the report files): the
// summary then comes from the reports it wrote, when they are Markdown.
import { existsSync, readFileSync } from 'node:fs';
import { control, error, input, sleep, state, summary } from './lib.js';

const STOP_TIMEOUT_MS = 60_000;

/** A report's Markdown from the control API, or null when it cannot be had. */
async function markdown(url, token) {
  try {
    const res = await control(url, token);
    return res.ok ? await res.text() : null;
  } catch {
    return null;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function tail(file, lines = 40) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** A report file the sandbox wrote, when it is Markdown: what the summary shows once the sandbox is gone. */
function reportFile(file) {
  if (!file.endsWith('.md') || !existsSync(file)) return null;
  return readFileSync(file, 'utf8');
}

async function main() {
  const pid = Number(state('pid'));
  if (!pid) {
    process.stdout.write('payout-sandbox: not started (the main step failed), nothing to stop.\n');
    return;
  }
  const token = input('admin-token');
  const controlUrl = state('control-url');
  const exitFile = state('exit-file');
  const logFile = state('log-file');
  // Still running (the usual case): the reports from the control API, then the stop. Stopped
  // earlier by a step of the job (to upload the report files): the Markdown files it wrote.
  let coverage = null;
  let review = null;
  if (alive(pid)) {
    coverage = await markdown(`${controlUrl}/coverage?format=markdown`, token);
    review = await markdown(`${controlUrl}/review?format=markdown`, token);
    process.kill(pid, 'SIGTERM');
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (!existsSync(exitFile) && Date.now() < deadline) await sleep(50);
  coverage ??= reportFile(input('coverage-report'));
  review ??= reportFile(input('review-report'));
  summary(
    [
      '## payout-sandbox',
      '',
      coverage ?? '_No behaviour coverage: the sandbox had stopped, and coverage-report is no .md file._',
      '',
      ...(review === null ? [] : [review, '']),
    ].join('\n'),
  );
  if (!existsSync(exitFile)) {
    error(`payout-sandbox (pid ${pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM; log ${logFile}:\n${tail(logFile)}`);
    process.exitCode = 1;
    return;
  }
  const code = Number(readFileSync(exitFile, 'utf8').trim());
  if (code === 0) {
    process.stdout.write(`payout-sandbox stopped cleanly (log ${logFile}).\n`);
    return;
  }
  process.exitCode = 1;
  if (code === 3) error(`behaviour coverage is under the coverage-min input (${input('coverage-min')}): payout-sandbox exited 3. See the job summary.`);
  else if (code === 4)
    error(
      input('fail-on-review') === 'unproven'
        ? 'the integration review has a high finding, or a high rule the run did not prove: payout-sandbox exited 4. See the job summary.'
        : `the integration review has a finding of severity ${input('fail-on-review')} or above: payout-sandbox exited 4. See the job summary.`,
    );
  else error(`payout-sandbox exited ${code}; log ${logFile}:\n${tail(logFile)}`);
}

main().catch((err) => {
  error(err.message);
  process.exitCode = 1;
});
