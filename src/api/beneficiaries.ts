import { Router } from 'express';
import { beneficiaryRecord } from '../contract/records.js';
import { CreateBeneficiaryRequest, GetBeneficiaryRequest } from '../contract/schemas.js';
import { createBeneficiary, findBeneficiary } from '../domain/beneficiaries.js';
import { MESSAGES } from '../errors.js';
import type { Sandbox } from '../sandbox.js';
import { dashboardAuth, merchantOf } from './auth.js';
import { sendSuccess } from './envelopes.js';
import { methodNotAllowed } from './routing.js';
import { inputParser } from './validation.js';

export function beneficiariesRouter(sb: Sandbox): Router {
  const router = Router();
  const auth = dashboardAuth(sb.repo);
  const parseCreate = inputParser(CreateBeneficiaryRequest);
  const parseGet = inputParser(GetBeneficiaryRequest);

  router
    .route('/api/v1/public/beneficiary/create')
    .post(auth, async (req, res) => {
      const { beneficiary, created } = createBeneficiary(sb, merchantOf(res), parseCreate(req.body));
      if (created) await sb.repo.persist();
      sendSuccess(res, created ? MESSAGES.beneficiaryCreated : MESSAGES.beneficiaryExists, {
        beneficiary_id: beneficiary.bene_id,
      });
    })
    .all(methodNotAllowed);

  router
    .route('/api/v1/public/beneficiary/get')
    .post(auth, (req, res) => {
      const merchant = merchantOf(res);
      const beneficiary = findBeneficiary(sb, merchant, parseGet(req.body));
      sendSuccess(res, MESSAGES.beneficiaryFetched, beneficiaryRecord(beneficiary, merchant));
    })
    .all(methodNotAllowed);

  return router;
}
