import type { Paise } from '../money.js';
import type {
  AccountStatus,
  ApiVersion,
  BeneficiaryStatus,
  CheckoutStatus,
  OperationName,
  PaymentMethod,
  PayoutStatus,
  Purpose,
  VerificationType,
} from '../vocab.js';

/** The records the state keeps (see State). */

/** `undelivered`: stored while the merchant's endpoint was disabled (sent by a replay, never on its own). */
export type DeliveryState = 'pending' | 'held' | 'delivered' | 'failed' | 'undelivered';

/**
 * What an attempt was, so an integration review can judge the receiver's answer: `genuine` (and
 * `duplicate`, a second copy) should be acknowledged; `forged` (a wrong key), `stale` (a timestamp
 * over 10 minutes old) and `replay` (a captured request sent again) should be refused or, for a
 * replay seen before, acknowledged without acting twice; `probe`: a receiver probe's request.
 */
export type AttemptKind = 'genuine' | 'forged' | 'stale' | 'replay' | 'duplicate' | 'probe';

export interface DeliveryAttempt {
  n: number;
  /** Sandbox time the attempt started. */
  at: number;
  /** Real time it was sent (ms since the epoch; absent in older files): orders attempts of one sandbox instant, and dates the timestamp it carried. */
  real_at?: number;
  /** The receiver's HTTP status, or null when there was none. */
  status: number | null;
  error: string | null;
  latency_ms: number;
  signature_valid: boolean;
  /** What this attempt was (absent in older files: `forged` when the signature was wrong, else `genuine`). */
  kind?: AttemptKind;
  /** The X-Sandbox-Timestamp it carried: unix seconds, real time (absent in older files). */
  timestamp?: number;
  /** Relayed by `payout-sandbox listen` rather than sent to the target: the local URL it forwarded to. */
  listener?: string;
}

export interface WebhookDelivery {
  delivery_id: string;
  merchant_id: string;
  ref_id: string;
  /** The payout status this delivery reports. */
  event_status: PayoutStatus;
  version: ApiVersion;
  target_url: string;
  /** The body, as JSON: what is sent (and signed) is exactly `JSON.stringify(body)`. */
  body: Record<string, unknown>;
  /** Chaos: signed with a wrong key, on purpose. */
  wrong_signature: boolean;
  /** Chaos: a copy of `duplicate_of`, sent under its delivery id after it. */
  duplicate_of: string | null;
  /** Chaos: held and sent after later deliveries of its payout (reorder). */
  reordered?: boolean;
  /** What the delivery is (absent in older files: from `wrong_signature` and `duplicate_of`); its attempts say what each was. */
  kind?: AttemptKind;
  /** Chaos stale_timestamp: its first attempt is signed correctly with a timestamp over 10 minutes old. */
  stale_timestamp?: boolean;
  /** Chaos replay: a captured copy of this delivery's first answered attempt is to be sent again later. */
  replay_planned?: boolean;
  /** Chaos replay: the delivery whose captured request this one sends again (its exact bytes and headers). */
  replay_of?: string | null;
  /** Chaos replay: the captured request's headers, sent unchanged (delivery id, attempt, timestamp, signatures). */
  captured_headers?: Record<string, string> | null;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  /** The due item of the next attempt, if one is scheduled (its `due` is when). */
  next_attempt: string | null;
  created_at: number;
}

export type DueKind = 'payout_step' | 'beneficiary_activation' | 'checkout_step' | 'webhook_attempt';

export interface DueItem {
  id: string;
  /** Tie-breaker: items due at the same instant run in the order they were scheduled. */
  seq: number;
  due: number;
  kind: DueKind;
  /** Whose item it is: it runs on that merchant's clock (absent in older files: found from the payload). */
  merchant_id?: string;
  payload: Record<string, unknown>;
}

export interface Merchant {
  merchant_id: string;
  name: string;
  email: string;
  api_key: string;
  api_secret: string;
  access_token: string;
  /** Fee per payment method, in paise. */
  fees: Record<PaymentMethod, Paise>;
  tax_rate_percent: number;
  per_transaction_limit: Paise;
  webhook_url: string | null;
  webhook_version: ApiVersion | null;
  /** The key webhook deliveries are signed with; absent until the first rotation: the API secret. */
  webhook_secret?: string;
  /** The secret in force before the last rotation, still signing until `expires_at` (the merchant's clock). */
  previous_webhook_secret?: { secret: string; expires_at: number } | null;
  /** Commission per verification type, in paise; tax on it at `tax_rate_percent`. */
  verification_charges: Record<VerificationType, Paise>;
}

export type LedgerEntryType = 'credit' | 'payout' | 'fee' | 'tax' | 'refund' | 'fee_refund' | 'tax_refund' | 'verification' | 'verification_tax';

export interface LedgerEntry {
  seq: number;
  at: number;
  type: LedgerEntryType;
  /** Signed: debits are negative. */
  amount: Paise;
  balance_after: Paise;
  /** The payout (or other record) the entry belongs to. */
  ref: string | null;
  note: string;
}

export interface Account {
  account_no: string;
  merchant_id: string;
  status: AccountStatus;
  balance: Paise;
  ledger: LedgerEntry[];
}

export interface Beneficiary {
  bene_id: string;
  merchant_id: string;
  bene_name: string;
  bene_email: string;
  bene_mobile_no: string;
  bank_name: string;
  bank_account_number: string;
  ifsc_code: string;
  vpa_address: string | null;
  status: BeneficiaryStatus;
  created_at: number;
  /** When it becomes Active on its own; null when it waits for the control API. */
  activates_at: number | null;
}

export interface PayoutTransition {
  status: PayoutStatus;
  at: number;
  bank_res_msg: string;
  /** Real time it was taken (ms since the epoch; absent in older files): orders it against what happened at the same sandbox instant. */
  real_at?: number;
}

export interface Payout {
  ref_id: string;
  merchant_id: string;
  client_ref_id: string;
  version: ApiVersion;
  purpose: Purpose;
  amount: Paise;
  fees: Paise;
  tax: Paise;
  payment_method: PaymentMethod;
  debit_from: string;
  status: PayoutStatus;
  bank_ref_number: string;
  bank_res_msg: string;
  beneficiary: { id: string; name: string; email_id: string; mobile_no: string };
  account_number: string;
  ifsc_code: string;
  remarks: string;
  created_at: number;
  /** Time of the latest status change: the record's `transaction_date`. */
  updated_at: number;
  history: PayoutTransition[];
  /** True once amount, fee and tax went back to the account; a refund happens at most once. */
  refunded: boolean;
  /** The scenario rule (or `inline`, `default`) that decided this payout's outcome. */
  rule: string;
  /**
   * How initialize was answered when a scripted fault answered it although the payout was made
   * (3003.01: HTTP 500; 3003.02: held; 3003.04: dropped); absent or null: answered 200.
   */
  initialize_fault?: { type: 'error' | 'delay' | 'drop'; http_code: number | null; message: string | null } | null;
  /** The due item of the next scripted step, if any (`POLL_STEP` when it waits for status checks). */
  next_step: string | null;
  /** Read-after-write lag: the status check does not find it before this time (its merchant's clock). */
  visible_at?: number;
  /** A poll-driven next step: taken on the `after_polls`-th status check counted in `polls`. */
  poll_step?: {
    step: { status: PayoutStatus; bank_res_msg?: string; afterPolls: number };
    rest: Array<{ afterMs: number; afterPolls?: number; status: PayoutStatus; bank_res_msg?: string }>;
    polls: number;
  } | null;
}

export interface Address {
  address: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  pincode: string | null;
}

export interface CheckoutTransaction {
  payment_id: string;
  merchant_id: string;
  status: CheckoutStatus;
  payment_mode: string;
  rrn: string;
  order: {
    order_id: string;
    product_name: string;
    gross_amount: Paise;
    gateway_fee: Paise;
    currency: string;
    tax: Paise;
  };
  customer: { name: string; email_id: string; mobile_no: string };
  shipping: Address;
  billing: Address;
  custom_fields: [string, string, string, string, string];
  created_at: number;
  /** The due item of the next scripted status, if any. */
  next_step: string | null;
}

export interface Verification {
  verification_id: string;
  merchant_id: string;
  source_type: VerificationType;
  doc_number: string;
  debit_from: string;
  commission: Paise;
  tax: Paise;
  /** `Pending` only for an Aadhaar OTP request not yet completed. */
  verification_status: 'Success' | 'Pending';
  verify_response: Record<string, unknown>;
  created_at: number;
}

export interface AadhaarOtpRequest {
  ref_id: string;
  merchant_id: string;
  verification_id: string;
  aadhaar_number: string;
  expires_at: number;
}

/**
 * What the integration review knows of one request of a merchant to the emulated API: the few
 * things its rules need, recorded as the request ends (see observe/review). Times are the merchant's
 * clock (ms); money in paise. Kept in pages of the merchant (ReviewFactPage).
 */
export interface ReviewFact {
  /** The order facts were recorded in, across merchants. */
  seq: number;
  at: number;
  /** Real time the request arrived (ms since the epoch; absent in older files): a Retry-After is waited out on either clock. */
  real_at?: number;
  op: OperationName;
  /** The request's X-Request-Id: the evidence a finding names. */
  request_id: string;
  /** The HTTP status answered; null: no answer (the connection closed, dropped, or the client gave up). */
  status: number | null;
  /** The envelope-B code of a refusal (INSUFFICIENT_BALANCE, …). */
  code?: string;
  /** The rule that decided the answer (a scenario rule, a fault rule, `chaos:…`, `outage:…`). */
  rule?: string;
  /** A transport fault answered it: a 5xx, a drop, an answer held past client time-outs. */
  transport?: 'error' | 'drop' | 'held';
  /** Initialize: the payout made (if one was), and what was asked. */
  ref_id?: string;
  client_ref_id?: string;
  /** Initialize: to whom — `bene:<id>` or `<account number>@<IFSC>`. */
  payee?: string;
  amount?: number;
  /** Initialize by beneficiary id: the beneficiary's status when it was asked. */
  bene_status?: string;
  /** Initialize: its remarks say `#repeat` (an intended repeat of a payment, never judged a double payout). */
  intended?: boolean;
  /** Status check: the payout status answered. */
  payout_status?: string;
  /** A 429 or 503: the Retry-After given, in seconds. */
  retry_after?: number;
  /** A read answered 200 again and again alike (a status polled in a loop): how many more times, the last time and its request id. */
  repeats?: number;
  last_at?: number;
  last_request_id?: string;
  /** What a repeat of this request is, for Retry-After: the operation and its key (account, payout id); a status check's is `getPayoutStatus|ref_id <id>` or `getPayoutStatus|client_ref_id <id>`. */
  key?: string;
}

/**
 * A page of one merchant's review facts, in order: a record of the state (`<merchant_id>/<seq of
 * its first fact>`) that only grows, so the change log writes the facts added since it last wrote
 * the page (as an account's ledger), and the bound drops a whole page at a time.
 */
export interface ReviewFactPage {
  id: string;
  merchant_id: string;
  facts: ReviewFact[];
}
