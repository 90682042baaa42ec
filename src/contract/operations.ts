import type { TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { OperationName } from '../vocab.js';
import {
  Balance,
  BeneficiaryRecord,
  CheckoutFailure,
  CheckoutSuccess,
  EnvelopeA,
  EnvelopeB,
  InitializeResult,
  PayoutRecord,
  Success,
  VerificationRecord,
} from './responses.js';
import {
  BalanceRequest,
  CheckoutStatusParams,
  CreateBeneficiaryRequest,
  GetBeneficiaryRequest,
  InitializePayoutRequest,
  PayoutStatusRequest,
  VerificationDetailsParams,
  VerifyRequest,
} from './schemas.js';

/** One operation of the emulated API: where it is, what it takes, what it answers. */
export interface Operation {
  /** The OpenAPI operation id. */
  id: string;
  /** What fault rules and chaos call it (both initialize versions are `initializePayout`). */
  name: OperationName;
  method: 'get' | 'post';
  /** OpenAPI form: `{param}`. */
  path: string;
  summary: string;
  description?: string;
  security: 'dashboard' | 'checkout';
  body?: TSchema;
  query?: TSchema;
  params?: TSchema;
  /** The query's fields may come in a JSON body on the GET instead (the status check). */
  queryFromBody?: boolean;
  /** HTTP status → [description, schema]. */
  responses: Record<string, [string, TSchema]>;
}

const dashboardErrors: Record<string, [string, TSchema]> = {
  '400': ['Validation failure (envelope A) or business failure (envelope B)', Type.Union([EnvelopeA, EnvelopeB])],
  '401': ['Credentials are not valid (envelope A)', EnvelopeA],
};
const rateLimited: Record<string, [string, TSchema]> = { '429': ['Too many attempts (envelope A, with Retry-After)', EnvelopeA] };

const initialize = (version: 'v1' | 'v2'): Operation => ({
  id: `initializePayout${version.toUpperCase()}`,
  name: 'initializePayout',
  method: 'post',
  path: `/api/${version}/public/payment/transfer`,
  summary: `Initialize payout (${version.toUpperCase()})`,
  description: 'Debits amount + fee + tax from `debit_from` and answers Pending; the payout then follows its timeline.',
  security: 'dashboard',
  body: InitializePayoutRequest,
  responses: { '200': ['The payout is accepted', Success(InitializeResult)], ...dashboardErrors },
});

/** Every operation of the reference, in its order. */
export const OPERATIONS: Operation[] = [
  initialize('v1'),
  initialize('v2'),
  {
    id: 'getPayoutStatus',
    name: 'getPayoutStatus',
    method: 'get',
    path: '/api/v1/public/payment/transfer/status',
    summary: 'Payout status check',
    description: 'By `ref_id` or `client_ref_id`, from the query string (or a JSON body on the GET). 3 calls per minute per transaction.',
    security: 'dashboard',
    query: PayoutStatusRequest,
    queryFromBody: true,
    responses: { '200': ['The payout record', Success(Type.Object({ transaction: PayoutRecord }))], ...dashboardErrors, ...rateLimited },
  },
  {
    id: 'getBalance',
    name: 'getBalance',
    method: 'get',
    path: '/api/v1/public/balance/check',
    summary: 'Balance check',
    description: '10 calls per minute per account.',
    security: 'dashboard',
    query: BalanceRequest,
    responses: { '200': ['The current balance', Success(Balance)], ...dashboardErrors, ...rateLimited },
  },
  {
    id: 'createBeneficiary',
    name: 'createBeneficiary',
    method: 'post',
    path: '/api/v1/public/beneficiary/create',
    summary: 'Create beneficiary',
    description: 'The beneficiary starts Pending and becomes Active after the scenario delay.',
    security: 'dashboard',
    body: CreateBeneficiaryRequest,
    responses: {
      '200': ['The beneficiary id', Success(Type.Object({ beneficiary_id: Type.String({ minLength: 20, maxLength: 20 }) }))],
      ...dashboardErrors,
    },
  },
  {
    id: 'getBeneficiary',
    name: 'getBeneficiary',
    method: 'post',
    path: '/api/v1/public/beneficiary/get',
    summary: 'Get beneficiary',
    security: 'dashboard',
    body: GetBeneficiaryRequest,
    responses: { '200': ['The beneficiary', Success(BeneficiaryRecord)], ...dashboardErrors },
  },
  {
    id: 'verify',
    name: 'verify',
    method: 'post',
    path: '/api/v1/public/verification/',
    summary: 'Verify a document or bank account',
    description: 'BANK, PAN, DRIVING_LICENSE, VOTER_ID, PASSPORT, CIN, GSTIN, AADHAAR (two steps, OTP 123456) or IFSC.',
    security: 'dashboard',
    body: VerifyRequest,
    responses: { '200': ['The verification record', Success(VerificationRecord)], ...dashboardErrors },
  },
  {
    id: 'getVerification',
    name: 'getVerification',
    method: 'get',
    path: '/api/v1/public/verification/{verification_id}',
    summary: 'Get verification details',
    security: 'dashboard',
    params: VerificationDetailsParams,
    responses: { '200': ['The verification record', Success(VerificationRecord)], ...dashboardErrors },
  },
  {
    id: 'getCheckoutStatus',
    name: 'getCheckoutStatus',
    method: 'get',
    path: '/api/v1/payment/transaction/{transaction_id}/status',
    summary: 'Checkout transaction status',
    description: 'On the checkout base URL (the main port, and `--checkout-port` when given).',
    security: 'checkout',
    params: CheckoutStatusParams,
    responses: {
      '200': ['The checkout transaction', CheckoutSuccess],
      '401': ['Credentials are not valid (envelope A): MerchantId or AccessToken missing or wrong', EnvelopeA],
      '404': ["Unknown transaction (or another merchant's)", CheckoutFailure],
    },
  },
];
