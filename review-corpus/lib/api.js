// The merchant's thin client of the payout API (docs/api.md): one method per operation, every
// answer read into a plain result, nothing retried here (retry policy is the caller's business).

const NOT_FOUND = 'Unable to find transaction using provided ID';

/** Seconds of a Retry-After header, or null. */
function retryAfterOf(res) {
  const v = res.headers.get('retry-after');
  if (v === null) return null;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

async function readJson(res) {
  const text = await res.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/**
 * @param {{ baseUrl: string, credentials: { email: string, apiKey: string, apiSecret: string },
 *           version?: 'v1'|'v2', clock?: { timer(ms: number): { promise: Promise<void>, cancel(): void } },
 *           timeoutMs?: number }} options
 */
export function payoutApi({ baseUrl, credentials, version = 'v2', clock = null, timeoutMs = 30_000 }) {
  const headers = {
    'x-merchant-email': credentials.email,
    'x-api-key': credentials.apiKey,
    'x-api-secret': credentials.apiSecret,
  };

  /** One HTTP call; a time-out (on the given clock) aborts it. Never throws. */
  async function call(method, path, body) {
    const controller = new AbortController();
    const timer = clock ? clock.timer(timeoutMs) : null;
    let timedOut = false;
    timer?.promise.then(() => {
      timedOut = true;
      controller.abort();
    });
    try {
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
      });
      const json = await readJson(res);
      return { http: res.status, json, retryAfter: retryAfterOf(res), requestId: res.headers.get('x-request-id') };
    } catch (err) {
      return { http: 0, json: null, retryAfter: null, noAnswer: timedOut ? 'timeout' : 'connection', error: String(err?.cause?.code ?? err?.message ?? err) };
    } finally {
      timer?.cancel();
    }
  }

  /** Sorts an answer: ok, rejected (envelope B), invalid (envelope A 4xx), limited (429), unavailable (5xx), no-answer. */
  function classify(r) {
    if (r.http === 0) return { kind: 'no-answer', reason: r.noAnswer, error: r.error };
    if (r.http === 200) return { kind: 'ok', data: r.json?.data ?? null, message: r.json?.message };
    if (r.http === 429) return { kind: 'limited', http: 429, retryAfter: r.retryAfter, message: r.json?.message };
    if (r.http >= 500) return { kind: 'unavailable', http: r.http, retryAfter: r.retryAfter, message: r.json?.message };
    if (r.json?.error?.code) return { kind: 'rejected', http: r.http, code: r.json.error.code, message: r.json.error.message ?? r.json.message };
    return { kind: 'invalid', http: r.http, message: r.json?.message ?? `HTTP ${r.http}` };
  }

  return {
    version,
    /** Initialize payout (V1 or V2). ok: { refId, status }. */
    async initialize(payout, { apiVersion = version } = {}) {
      const r = classify(await call('POST', `/api/${apiVersion}/public/payment/transfer`, { transfer_type: 'BANK', ...payout }));
      if (r.kind === 'ok') return { ...r, refId: String(r.data.ref_id), status: r.data.status };
      if (r.kind === 'rejected' && r.message === 'Duplicate Client Reference ID') return { ...r, kind: 'duplicate' };
      return r;
    },
    /** Payout status check by ref_id or client_ref_id. found: { transaction }; not-found: the lag or no such payout. */
    async status(ids) {
      const query = new URLSearchParams(Object.entries(ids).filter(([, v]) => v !== undefined && v !== null)).toString();
      const r = classify(await call('GET', `/api/v1/public/payment/transfer/status?${query}`));
      if (r.kind === 'ok') return { kind: 'found', transaction: r.data.transaction };
      if (r.kind === 'rejected' && r.message === NOT_FOUND) return { kind: 'not-found' };
      return r;
    },
    async createBeneficiary(beneficiary) {
      const r = classify(await call('POST', '/api/v1/public/beneficiary/create', { transfer_type: 'BANK', ...beneficiary }));
      return r.kind === 'ok' ? { ...r, beneficiaryId: r.data.beneficiary_id } : r;
    },
    async getBeneficiary(query) {
      const r = classify(await call('POST', '/api/v1/public/beneficiary/get', query));
      return r.kind === 'ok' ? { ...r, beneficiary: r.data } : r;
    },
    async balance(accountNo) {
      const r = classify(await call('GET', `/api/v1/public/balance/check?account_no=${encodeURIComponent(accountNo)}`));
      return r.kind === 'ok' ? { ...r, balance: r.data.current_balance } : r;
    },
  };
}

/** The API client for the demo merchant of a started sandbox. */
export function sandboxApi(sb, clock, options = {}) {
  return payoutApi({
    baseUrl: sb.url,
    credentials: { email: sb.merchant.email, apiKey: sb.merchant.apiKey, apiSecret: sb.merchant.apiSecret },
    clock,
    ...options,
  });
}
