/**
 * A small payout client, written the way a merchant's integration would be: initialize a payout,
 * poll its status (honouring 429 and Retry-After), and retry safely after a lost answer by looking
 * the payout up by its client_ref_id before sending it again.
 */

export interface Credentials {
  email: string;
  apiKey: string;
  apiSecret: string;
}

export interface PayoutRequest {
  client_ref_id: string;
  amount: number;
  payment_method: '1001' | '1002' | '1003';
  debit_from: string;
  beneficiary_name: string;
  beneficiary_email: string;
  account_number: string;
  ifsc_code: string;
  purpose: 'CASHBACK' | 'REWARDS' | 'VENDOR_PAYOUT' | 'SALARY';
  remarks: string;
}

export interface Transaction {
  ref_id: number;
  client_ref_id: string;
  status: 'NEW' | 'Pending' | 'Success' | 'Failed' | 'Unknown';
  amount: number;
  bank_ref_number: string;
  bank_res_msg: string;
}

export class PayoutApiError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string | null,
    message: string,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  baseUrl: string;
  credentials: Credentials;
  /** How the client waits; a test passes one that moves the sandbox clock instead of real time. */
  sleep?: (ms: number) => Promise<void>;
  pollIntervalMs?: number;
}

const FINAL = new Set(['Success', 'Failed']);

/** The API's answers as this client reads them: success (`data`), envelope A (`message`) or B (`error`). */
interface ApiBody {
  message?: string;
  data?: { ref_id?: string; transaction?: Transaction };
  error?: { code?: string; message?: string };
}

export class PayoutClient {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ClientOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  private headers(): Record<string, string> {
    const c = this.options.credentials;
    return { 'content-type': 'application/json', 'x-merchant-email': c.email, 'x-api-key': c.apiKey, 'x-api-secret': c.apiSecret };
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: ApiBody; retryAfter: number | null }> {
    const res = await fetch(this.options.baseUrl + path, { method, headers: this.headers(), body: body === undefined ? undefined : JSON.stringify(body) });
    const retryAfter = res.headers.get('retry-after');
    return { status: res.status, json: (await res.json()) as ApiBody, retryAfter: retryAfter === null ? null : Number(retryAfter) };
  }

  private static failure(r: { status: number; json: ApiBody }): PayoutApiError {
    return new PayoutApiError(r.status, r.json?.error?.code ?? null, r.json?.message ?? `HTTP ${r.status}`);
  }

  /** POST /api/v2/public/payment/transfer: the ref_id of an accepted payout. */
  async initialize(req: PayoutRequest): Promise<string> {
    const r = await this.call('POST', '/api/v2/public/payment/transfer', { transfer_type: 'BANK', ...req });
    if (r.status !== 200) throw PayoutClient.failure(r);
    return r.json.data?.ref_id as string;
  }

  /** The status check, waiting out 429s for as long as Retry-After says. Null for an unknown id. */
  async status(ids: { ref_id?: string; client_ref_id?: string }): Promise<Transaction | null> {
    const query = new URLSearchParams(ids as Record<string, string>).toString();
    for (;;) {
      const r = await this.call('GET', `/api/v1/public/payment/transfer/status?${query}`);
      if (r.status === 429) {
        await this.sleep((r.retryAfter ?? 60) * 1000);
        continue;
      }
      if (r.status === 200) return r.json.data?.transaction as Transaction;
      if (r.status === 400 && r.json?.error?.message === 'Unable to find transaction using provided ID') return null;
      throw PayoutClient.failure(r);
    }
  }

  /** Polls until the payout is Success or Failed, backing off (doubling, at most 10 min). */
  async waitForFinal(refId: string, maxPolls = 30): Promise<Transaction> {
    let interval = this.options.pollIntervalMs ?? 5000;
    for (let i = 0; i < maxPolls; i++) {
      const t = await this.status({ ref_id: refId });
      if (t && FINAL.has(t.status)) return t;
      await this.sleep(interval);
      interval = Math.min(interval * 2, 10 * 60_000);
    }
    throw new Error(`payout ${refId} did not settle after ${maxPolls} polls`);
  }

  /**
   * Pays out exactly once: a 5xx or a lost answer may still have created the payout, so before
   * sending again the client asks for it by client_ref_id.
   */
  async payOnce(req: PayoutRequest, attempts = 3): Promise<string> {
    for (let i = 1; ; i++) {
      try {
        return await this.initialize(req);
      } catch (err) {
        const transient = !(err instanceof PayoutApiError) || err.httpStatus >= 500;
        if (!transient || i >= attempts) throw err;
        const existing = await this.status({ client_ref_id: req.client_ref_id });
        if (existing) return String(existing.ref_id);
      }
    }
  }
}
