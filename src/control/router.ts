import { Router } from 'express';
import type { Sandbox } from '../sandbox.js';
import { VERSION } from '../version.js';

/** The sandbox's own surface, apart from the emulated API (SPEC 9). */
export function controlRouter(_sb: Sandbox): Router {
  const router = Router();
  router.get('/__sandbox/health', (_req, res) => {
    res.json({ ok: true, version: VERSION });
  });
  return router;
}
