import request from 'supertest';
import type { SandboxApp } from '../../src/app.js';
import { DEMO, demoHeaders, initialize, OTHER, otherHeaders, payoutBody, testApp } from '../helpers.js';

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp({ clockStart: Date.parse('2026-02-10T18:45:30+05:30') });
});

const create = (body: Record<string, unknown>, headers = demoHeaders) => request(app).post('/api/v1/public/beneficiary/create').set(headers).send(body);
const get = (body: Record<string, unknown>, headers = demoHeaders) => request(app).post('/api/v1/public/beneficiary/get').set(headers).send(body);

function beneBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    transfer_type: 'BANK',
    beneficiary_name: 'Anita Desai',
    beneficiary_email: 'anita.desai@example.com',
    beneficiary_mobile: '9123456780',
    account_number: '001234567890',
    ifsc_code: 'ICIC0001234',
    ...overrides,
  };
}

describe('create beneficiary', () => {
  test('returns a 20-character beneficiary_id; the record starts Pending with every field', async () => {
    const res = await create(beneBody());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      http_code: 200,
      message: expect.any(String),
      data: { beneficiary_id: expect.stringMatching(/^[A-Z0-9]{20}$/) },
    });
    const got = await get({ beneficiary_id: res.body.data.beneficiary_id });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({
      bene_id: res.body.data.beneficiary_id,
      email_id: DEMO.email,
      bene_name: 'Anita Desai',
      bene_email: 'anita.desai@example.com',
      bene_mobile_no: '9123456780',
      bank_name: 'ICICI Bank',
      bank_account_number: '001234567890',
      ifsc_code: 'ICIC0001234',
      vpa_address: null,
      status: 'Pending',
      timestamp: '10/02/2026 06:45:30 PM',
    });
  });

  test('keeps when it will become Active (10 s after creation by default)', async () => {
    const res = await create(beneBody());
    const stored = app.sandbox.repo.state.beneficiaries[res.body.data.beneficiary_id];
    expect(stored.activates_at).toBe(stored.created_at + 10_000);
  });

  test('the same account number and IFSC again returns the existing beneficiary', async () => {
    const first = await create(beneBody());
    const again = await create(beneBody({ beneficiary_name: 'Anita R Desai' }));
    expect(again.status).toBe(200);
    expect(again.body.message).toBe('Beneficiary already exists');
    expect(again.body.data.beneficiary_id).toBe(first.body.data.beneficiary_id);
    const otherIfsc = await create(beneBody({ ifsc_code: 'HDFC0000001' }));
    expect(otherIfsc.body.data.beneficiary_id).not.toBe(first.body.data.beneficiary_id);
    const otherMerchant = await create(beneBody(), otherHeaders);
    expect(otherMerchant.body.data.beneficiary_id).not.toBe(first.body.data.beneficiary_id);
  });

  test.each([
    ['transfer_type', { transfer_type: 'UPI' }, 'The selected transfer type is invalid.'],
    ['missing name', { beneficiary_name: undefined }, 'The beneficiary name field is required.'],
    ['name with symbols', { beneficiary_name: 'Anita@Desai' }, 'The beneficiary name field must only contain letters, numbers and spaces.'],
    ['missing email', { beneficiary_email: undefined }, 'The beneficiary email field is required.'],
    ['bad email', { beneficiary_email: 'anita@' }, 'The beneficiary email field must be a valid email address.'],
    ['missing mobile', { beneficiary_mobile: undefined }, 'The beneficiary mobile field is required.'],
    ['mobile of 11 digits', { beneficiary_mobile: '91234567801' }, 'The beneficiary mobile field must be 10 digits.'],
    ['mobile with letters', { beneficiary_mobile: '91234567ab' }, 'The beneficiary mobile field must be 10 digits.'],
    ['account with letters', { account_number: '0012345ABC' }, 'The account number field must be between 9 and 18 digits.'],
    ['account too short', { account_number: '12345678' }, 'The account number field must be between 9 and 18 digits.'],
    ['missing ifsc', { ifsc_code: undefined }, 'The ifsc code field is required.'],
    ['bad ifsc shape', { ifsc_code: 'ICIC1001234' }, 'The ifsc code field format is invalid.'],
  ])('%s: envelope A 400, nothing stored', async (_name, overrides, message) => {
    const body = beneBody();
    for (const [k, v] of Object.entries(overrides)) {
      if (v === undefined) delete body[k];
      else body[k] = v;
    }
    const before = Object.keys(app.sandbox.repo.state.beneficiaries).length;
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, http_code: 400, message });
    expect(Object.keys(app.sandbox.repo.state.beneficiaries)).toHaveLength(before);
  });

  test('needs credentials', async () => {
    const res = await create(beneBody(), {});
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, http_code: 401, message: 'Credentials are not valid' });
  });
});

describe('create beneficiary: the scenario\'s reading of "alphanumeric only" for beneficiary_name', () => {
  test('the default accepts a name with a space; validation.beneficiary_name alphanumeric refuses it, naming the rule', async () => {
    expect((await create(beneBody({ beneficiary_name: 'Ravi Kumar' }))).status).toBe(200);
    const strict = await testApp({ scenario: { extends: 'default', name: 'strict-names', validation: { beneficiary_name: 'alphanumeric' } } });
    const count = () => Object.keys(strict.sandbox.repo.state.beneficiaries).length;
    const before = count();
    const refused = await request(strict)
      .post('/api/v1/public/beneficiary/create')
      .set(demoHeaders)
      .send(beneBody({ beneficiary_name: 'Ravi Kumar' }));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ success: false, http_code: 400, message: 'The beneficiary name field must only contain letters and numbers.' });
    expect(count()).toBe(before);
    const plain = await request(strict)
      .post('/api/v1/public/beneficiary/create')
      .set(demoHeaders)
      .send(beneBody({ beneficiary_name: 'RaviKumar' }));
    expect(plain.status).toBe(200);
  });
});

describe('get beneficiary', () => {
  const NOT_FOUND = { success: false, http_code: 400, message: 'Beneficiary not found in the system using the provided details' };

  test('by beneficiary_name and account_number (name case-insensitive)', async () => {
    const res = await get({ beneficiary_name: 'ravi kumar', account_number: '50100012345678' });
    expect(res.status).toBe(200);
    expect(res.body.data.bene_id).toBe(DEMO.activeBene);
    expect(res.body.data.status).toBe('Active');
  });

  test('no match: envelope A 400 with the reference message', async () => {
    expect((await get({ beneficiary_id: 'NOSUCHBENE0000000000' })).body).toEqual(NOT_FOUND);
    expect((await get({ beneficiary_name: 'Ravi Kumar', account_number: '999' })).body).toEqual(NOT_FOUND);
    expect((await get({ beneficiary_name: 'Someone Else', account_number: '50100012345678' })).body).toEqual(NOT_FOUND);
  });

  test("another merchant's beneficiary answers as not found, by id and by name", async () => {
    expect((await get({ beneficiary_id: OTHER.bene })).body).toEqual(NOT_FOUND);
    expect((await get({ beneficiary_name: 'Kiran Rao', account_number: '912010012345678' })).body).toEqual(NOT_FOUND);
    expect((await get({ beneficiary_id: OTHER.bene }, otherHeaders)).status).toBe(200);
  });

  test('without an id, name and account number are required', async () => {
    expect((await get({})).body).toEqual({
      success: false,
      http_code: 400,
      message: 'The beneficiary name field is required when beneficiary id is not present.',
    });
    expect((await get({ beneficiary_name: 'Ravi Kumar' })).body).toEqual({
      success: false,
      http_code: 400,
      message: 'The account number field is required when beneficiary id is not present.',
    });
  });
});

describe('payouts and beneficiaries', () => {
  test('a payout to a just-created (Pending) beneficiary is INVALID_BENEFICIARY', async () => {
    const created = await create(beneBody());
    const res = await initialize(app, payoutBody({ beneficiary_id: created.body.data.beneficiary_id }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_BENEFICIARY');
  });

  test("another merchant's payout cannot use a beneficiary it does not own", async () => {
    const res = await initialize(app, payoutBody({ beneficiary_id: DEMO.activeBene, debit_from: OTHER.van }), 'v1', otherHeaders);
    expect(res.body.error.code).toBe('INVALID_BENEFICIARY');
  });
});
