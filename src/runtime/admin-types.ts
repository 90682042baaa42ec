import { RequestError } from '../errors.js';
import type { ApiVersion } from '../vocab.js';
import type { RefusedTransition } from './journal.js';
import type { RupeeTerms } from './terms.js';

/** The Admin facade's inputs, as the control API takes them (money in rupees), and its refusal. */

/** A transition the domain refused (409); the control API notes it on the request's journal entry. */
export class TransitionRefused extends RequestError {
  constructor(readonly refusal: RefusedTransition) {
    super(409, refusal.reason);
  }
}

export interface NewMerchantInput extends Omit<RupeeTerms, 'verification_charges'> {
  name?: string;
  email?: string;
  /** Opening balance of the merchant's VAN, in rupees. */
  balance?: number;
  /** A clock of its own: mode (default the sandbox's) and start (ISO; default the sandbox's time now). Absent: it follows the sandbox clock. */
  clock?: { mode?: 'real' | 'manual'; start?: string };
}

export interface MerchantPatchInput {
  webhook_url?: string | null;
  webhook_version?: ApiVersion | null;
  per_transaction_limit?: number;
}

export interface NewCheckoutInput {
  merchant_id: string;
  /** Rupees. */
  amount: number;
  payment_mode?: string;
  order_id?: string;
  product_name?: string;
  customer?: { name?: string; email_id?: string; mobile_no?: string };
  custom_fields?: string[];
}

export type ScenarioChoice = { name: string; scenario?: undefined } | { scenario: unknown; name?: undefined };

