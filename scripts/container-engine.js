// The container engine the image scripts use (build-image.js, test-image.js): podman when it is
// installed, else docker when its daemon answers. PAYOUT_SANDBOX_ENGINE=podman|docker chooses.
import { spawnSync } from 'node:child_process';

const works = (cmd, args) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

/**
 * `{ cmd, runFlags }`, or null when neither is there. With podman, `runc` is used as the runtime
 * when it is installed: podman's default, crun, cannot set up the cgroups of some machines (this
 * project's CI among them), and the open-file and process limits are given explicitly for the
 * same reason.
 */
export function containerEngine() {
  const wanted = process.env.PAYOUT_SANDBOX_ENGINE;
  if ((wanted === undefined || wanted === 'podman') && works('podman', ['--version'])) {
    const runtime = works('runc', ['--version']) ? ['--runtime', 'runc'] : [];
    return { cmd: 'podman', global: runtime, runFlags: ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'], buildFlags: ['--format', 'docker'] };
  }
  if ((wanted === undefined || wanted === 'docker') && works('docker', ['info'])) {
    return { cmd: 'docker', global: [], runFlags: [], buildFlags: [] };
  }
  return null;
}
