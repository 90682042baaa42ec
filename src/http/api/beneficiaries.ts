import type { Sandbox } from '../../admin/sandbox.js';
import { beneficiaryRecord } from '../../contract/records.js';
import type { CreateBeneficiaryRequest, GetBeneficiaryRequest } from '../../contract/schemas.js';
import { createBeneficiary, findBeneficiary } from '../../domain/beneficiaries.js';
import { MESSAGES } from '../../errors.js';
import type { Call, OperationHandlers } from '../mount.js';
import { sendSuccess } from '../respond.js';

export function beneficiaryHandlers(sb: Sandbox): OperationHandlers {
  return {
    createBeneficiary: {
      handle: async ({ res, merchant, input }: Call<CreateBeneficiaryRequest>) => {
        const { beneficiary, created } = createBeneficiary(sb, merchant, input);
        if (created) await sb.repo.persist();
        sendSuccess(res, created ? MESSAGES.beneficiaryCreated : MESSAGES.beneficiaryExists, { beneficiary_id: beneficiary.bene_id });
      },
    },
    getBeneficiary: {
      handle: ({ res, merchant, input }: Call<GetBeneficiaryRequest>) => {
        sendSuccess(res, MESSAGES.beneficiaryFetched, beneficiaryRecord(findBeneficiary(sb, merchant, input), merchant));
      },
    },
  };
}
