import type { Sandbox } from '../../admin/sandbox.js';
import { verificationRecord } from '../../contract/records.js';
import type { VerifyRequest } from '../../contract/schemas.js';
import { findVerification, VERIFICATION_MESSAGES, verify } from '../../domain/verification/verify.js';
import type { Call, OperationHandlers } from '../mount.js';
import { sendSuccess } from '../respond.js';

export function verificationHandlers(sb: Sandbox): OperationHandlers {
  return {
    verify: {
      handle: async ({ res, merchant, input }: Call<VerifyRequest>) => {
        const outcome = verify(sb, merchant, input);
        await sb.repo.persist();
        sendSuccess(res, outcome.message, verificationRecord(outcome.verification));
      },
    },
    getVerification: {
      handle: ({ res, merchant, input }: Call<{ verification_id: string }>) => {
        sendSuccess(res, VERIFICATION_MESSAGES.fetched, verificationRecord(findVerification(sb, merchant, input.verification_id)));
      },
    },
  };
}
