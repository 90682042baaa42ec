import type { SandboxOptions } from '../sandbox/config.js';
import type { SandboxCore } from '../sandbox/core.js';
import { openCore } from '../sandbox/open.js';
import { Admin } from './admin.js';

/**
 * The running sandbox: the store, the clock, the scheduler, the outbox and their wiring
 * (SandboxCore), with its one admin surface. The emulated API and the control API (HTTP) and the
 * in-process handle all reach the sandbox through this; the admin surface through `admin`.
 */
export interface Sandbox extends SandboxCore {
  admin: Admin;
}

/**
 * Opens a sandbox from options (the CLI's, startSandbox's, or a test's): files read and checked,
 * the store opened, everything due while it was stopped run. Invalid options or files reject
 * before anything is written.
 */
export async function openSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { core, fixtureMerchants } = await openCore(options);
  return Object.assign(core, { admin: new Admin(core, fixtureMerchants) });
}
