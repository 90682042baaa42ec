import { Router } from 'express';
import { verificationRecord } from '../contract/records.js';
import { VerificationDetailsParams, VerifyRequest } from '../contract/schemas.js';
import { VERIFICATION_MESSAGES, findVerification, verify } from '../domain/verification/verify.js';
import type { Sandbox } from '../sandbox.js';
import { dashboardAuth, merchantOf } from './auth.js';
import { sendSuccess } from './envelopes.js';
import { methodNotAllowed } from './routing.js';
import { inputParser } from './validation.js';

export function verificationRouter(sb: Sandbox): Router {
  const router = Router();
  const auth = dashboardAuth(sb.repo);
  const parseVerify = inputParser(VerifyRequest);
  const parseDetails = inputParser(VerificationDetailsParams);

  router
    .route('/api/v1/public/verification')
    .post(auth, async (req, res) => {
      const outcome = verify(sb, merchantOf(res), parseVerify(req.body) as VerifyRequest);
      await sb.repo.persist();
      sendSuccess(res, outcome.message, verificationRecord(outcome.verification));
    })
    .all(methodNotAllowed);

  router
    .route('/api/v1/public/verification/:verification_id')
    .get(auth, (req, res) => {
      const { verification_id } = parseDetails(req.params);
      const v = findVerification(sb, merchantOf(res), verification_id);
      sendSuccess(res, VERIFICATION_MESSAGES.fetched, verificationRecord(v));
    })
    .all(methodNotAllowed);

  return router;
}
