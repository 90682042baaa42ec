// What the action's steps share: inputs, outputs and state as the GitHub runner passes them
// (plain Node, no @actions/core): an input `admin-token` arrives as INPUT_ADMIN-TOKEN, outputs
// and state are appended to the files $GITHUB_OUTPUT and $GITHUB_STATE name, and the runner
// hands a state `pid` to the post step as STATE_pid.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The action's folder (a checkout of this repository). */
export const ACTION_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/** An input's value, trimmed; '' when not given. */
export function input(name) {
  return (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}

/** `name=value`, or the delimited form the runner reads for a value with a line break. */
function entry(name, value) {
  const text = String(value);
  if (!/[\r\n]/.test(text)) return `${name}=${text}\n`;
  const end = `ghadelimiter_${randomUUID()}`;
  return `${name}<<${end}\n${text}\n${end}\n`;
}

export function setOutput(name, value) {
  if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, entry(name, value));
  else process.stdout.write(`${name}=${value}\n`);
}

export function saveState(name, value) {
  if (process.env.GITHUB_STATE) appendFileSync(process.env.GITHUB_STATE, entry(name, value));
}

export function state(name) {
  return process.env[`STATE_${name}`] ?? '';
}

/** A line the runner shows as an error annotation (and the step's failure). */
export function error(message) {
  process.stdout.write(`::error title=payout-sandbox::${message.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}\n`);
}

export function summary(markdown) {
  if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fetch of the control API, with the admin token when there is one. */
export function control(url, token) {
  return fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(10_000) });
}
