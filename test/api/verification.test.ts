import request from 'supertest';
import type { SandboxApp } from '../../src/app.js';
import { advance, balance, DEMO, defaultFixtures, demoHeaders, OTHER, otherHeaders, testApp } from '../helpers.js';

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp();
});

const verify = (body: Record<string, unknown>, headers = demoHeaders, target = app) =>
  request(target)
    .post('/api/v1/public/verification/')
    .set(headers)
    .send({ debit_from: DEMO.van1, ...body });
const details = (id: string, headers = demoHeaders) => request(app).get(`/api/v1/public/verification/${id}`).set(headers);

interface TypeCase {
  type: string;
  member: string;
  good: Record<string, string>;
  magic: Record<string, string>;
  malformed: Record<string, string>;
  malformedMessage: string;
  doc: string;
  keys: string[];
  commission: number;
}

const CASES: TypeCase[] = [
  {
    type: 'PAN',
    member: 'pan',
    good: { pan_number: 'ABCPE1234F', name: 'Anita Desai' },
    magic: { pan_number: 'ZZZZZ0000Z' },
    malformed: { pan_number: 'ABCPE12345' },
    malformedMessage: 'The pan.pan number field format is invalid.',
    doc: 'ABCPE1234F',
    keys: ['pan', 'type', 'reference_id', 'name_provided', 'registered_name', 'father_name', 'valid', 'message'],
    commission: 2,
  },
  {
    type: 'BANK',
    member: 'bank',
    good: { account_no: '50100012345678', ifsc_code: 'HDFC0001234' },
    magic: { account_no: '000000000000', ifsc_code: 'HDFC0001234' },
    malformed: { account_no: '5010001234ABC', ifsc_code: 'HDFC0001234' },
    malformedMessage: 'The bank.account no field must be between 9 and 18 digits.',
    doc: '50100012345678',
    keys: ['account_exists', 'name_at_bank', 'account_number', 'ifsc', 'bank_name', 'branch', 'city', 'utr', 'amount_deposited', 'valid', 'message'],
    commission: 3,
  },
  {
    type: 'IFSC',
    member: 'ifsc',
    good: { ifsc_code: 'SBIN0004567' },
    magic: { ifsc_code: 'ZZZZ0000000' },
    malformed: { ifsc_code: 'SBIN4567' },
    malformedMessage: 'The ifsc.ifsc code field format is invalid.',
    doc: 'SBIN0004567',
    keys: ['ifsc', 'bank', 'branch', 'address', 'city', 'district', 'state', 'micr', 'contact', 'imps', 'neft', 'rtgs', 'upi', 'valid', 'message'],
    commission: 1,
  },
  {
    type: 'GSTIN',
    member: 'gstin',
    good: { gstin_number: '27AAPFU0939F1ZV' },
    magic: { gstin_number: '00ZZZZZ0000Z1Z0' },
    malformed: { gstin_number: '27AAPFU0939F1Z' },
    malformedMessage: 'The gstin.gstin number field format is invalid.',
    doc: '27AAPFU0939F1ZV',
    keys: [
      'gstin',
      'pan',
      'legal_name',
      'trade_name',
      'status',
      'registration_date',
      'constitution_of_business',
      'taxpayer_type',
      'state',
      'state_code',
      'principal_place_of_business',
      'valid',
      'message',
    ],
    commission: 5,
  },
  {
    type: 'CIN',
    member: 'cin',
    good: { cin_number: 'U72200MH2009PTC123456' },
    magic: { cin_number: 'U00000ZZ0000ZZZ000000' },
    malformed: { cin_number: 'X72200MH2009PTC123456' },
    malformedMessage: 'The cin.cin number field format is invalid.',
    doc: 'U72200MH2009PTC123456',
    keys: [
      'cin',
      'company_name',
      'company_status',
      'company_class',
      'listed',
      'incorporation_date',
      'registrar_of_companies',
      'authorised_capital',
      'paid_up_capital',
      'email',
      'registered_address',
      'valid',
      'message',
    ],
    commission: 5,
  },
  {
    type: 'DRIVING_LICENSE',
    member: 'dl',
    good: { dl_number: 'MH14 20110062821', dob: '1990-05-17' },
    magic: { dl_number: 'ZZ0000000000000', dob: '1990-05-17' },
    malformed: { dl_number: 'MH1420110062821', dob: '17-05-1990' },
    malformedMessage: 'The dl.dob field must be a valid date in the format YYYY-MM-DD.',
    doc: 'MH1420110062821',
    keys: [
      'dl_number',
      'name',
      'father_or_husband_name',
      'dob',
      'date_of_issue',
      'valid_upto_non_transport',
      'valid_upto_transport',
      'issuing_authority',
      'state',
      'vehicle_classes',
      'address',
      'status',
      'valid',
      'message',
    ],
    commission: 5,
  },
  {
    type: 'VOTER_ID',
    member: 'voter_id',
    good: { voter_id_number: 'ABC1234567' },
    magic: { voter_id_number: 'ZZZ0000000' },
    malformed: { voter_id_number: 'AB12345678' },
    malformedMessage: 'The voter id.voter id number field format is invalid.',
    doc: 'ABC1234567',
    keys: [
      'epic_number',
      'name',
      'relative_name',
      'relation_type',
      'gender',
      'age',
      'state',
      'district',
      'assembly_constituency',
      'parliamentary_constituency',
      'polling_station',
      'part_number',
      'serial_number',
      'valid',
      'message',
    ],
    commission: 4,
  },
  {
    type: 'PASSPORT',
    member: 'passport',
    good: { file_number: 'BO1067245548712', dob: '1990-05-17' },
    magic: { file_number: 'ZZ0000000000', dob: '1990-05-17' },
    malformed: { file_number: 'B01', dob: '1990-05-17' },
    malformedMessage: 'The passport.file number field format is invalid.',
    doc: 'BO1067245548712',
    keys: [
      'file_number',
      'name',
      'dob',
      'passport_number',
      'date_of_issue',
      'date_of_expiry',
      'place_of_issue',
      'application_type',
      'application_received_on',
      'valid',
      'message',
    ],
    commission: 5,
  },
];

describe.each(CASES)('$type', (c) => {
  test('success: a realistic verify_response, the record, and the charge on the ledger', async () => {
    const before = (await balance(app, DEMO.van1)).body.data.current_balance;
    const res = await verify({ verification_type: c.type, [c.member]: c.good });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const d = res.body.data;
    expect(Object.keys(d)).toEqual(['verification_id', 'source_type', 'doc_number', 'commission', 'tax', 'verification_status', 'verify_response']);
    expect(d.verification_id).toMatch(/^VRF[A-Z0-9]{17}$/);
    expect(d.source_type).toBe(c.type);
    expect(d.doc_number).toBe(c.doc);
    expect(d.verification_status).toBe('Success');
    expect(d.commission).toBe(c.commission);
    expect(d.tax).toBe(Math.round(c.commission * 18) / 100);
    expect(Object.keys(d.verify_response).sort()).toEqual([...c.keys].sort());
    expect(d.verify_response.valid).toBe(true);
    expect(typeof d.verify_response.message).toBe('string');
    const after = (await balance(app, DEMO.van1)).body.data.current_balance;
    expect(Math.round((before - after) * 100)).toBe(Math.round((c.commission + d.tax) * 100));
    const ledger = app.sandbox.repo.state.accounts[DEMO.van1].ledger.slice(-2);
    expect(ledger.map((e) => [e.type, e.ref])).toEqual([
      ['verification', d.verification_id],
      ['verification_tax', d.verification_id],
    ]);
  });

  test('the same number always gives the same answer, whatever the seed', async () => {
    const a = await verify({ verification_type: c.type, [c.member]: c.good });
    const b = await verify({ verification_type: c.type, [c.member]: c.good });
    const other = await testApp({ seed: 999 });
    const o = await verify({ verification_type: c.type, [c.member]: c.good }, demoHeaders, other);
    expect(b.body.data.verify_response).toEqual(a.body.data.verify_response);
    expect(o.body.data.verify_response).toEqual(a.body.data.verify_response);
    expect(b.body.data.verification_id).not.toBe(a.body.data.verification_id);
  });

  test('its magic number gives valid: false (still charged)', async () => {
    const res = await verify({ verification_type: c.type, [c.member]: c.magic });
    expect(res.status).toBe(200);
    expect(res.body.data.verification_status).toBe('Success');
    expect(res.body.data.verify_response.valid).toBe(false);
    expect(typeof res.body.data.verify_response.message).toBe('string');
    expect(res.body.data.commission).toBe(c.commission);
  });

  test('a malformed number: envelope A 400, nothing charged', async () => {
    const before = (await balance(app, DEMO.van1)).body.data.current_balance;
    const res = await verify({ verification_type: c.type, [c.member]: c.malformed });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, http_code: 400, message: c.malformedMessage });
    expect((await balance(app, DEMO.van1)).body.data.current_balance).toBe(before);
  });

  test('the member named by the type is required', async () => {
    const res = await verify({ verification_type: c.type });
    expect(res.body).toEqual({
      success: false,
      http_code: 400,
      message: `The ${c.member.replace(/_/g, ' ')} field is required when verification type is ${c.type}.`,
    });
  });
});

describe('verification: account and record rules', () => {
  const pan = { verification_type: 'PAN', pan: { pan_number: 'ABCPE1234F' } };

  test('unknown verification_type', async () => {
    expect((await verify({ verification_type: 'RATION_CARD' })).body).toEqual({
      success: false,
      http_code: 400,
      message: 'The selected verification type is invalid.',
    });
  });

  test('INACTIVE account: ACCOUNT_NOT_ACTIVE', async () => {
    const res = await verify({ ...pan, debit_from: DEMO.inactiveVan });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('ACCOUNT_NOT_ACTIVE');
  });

  test("another merchant's account answers as an unknown one", async () => {
    const foreign = await verify({ ...pan, debit_from: OTHER.van });
    const unknown = await verify({ ...pan, debit_from: 'NOSUCHVAN00000000000' });
    expect(foreign.body).toEqual(unknown.body);
    expect(foreign.body).toEqual({ success: false, http_code: 400, message: 'The selected debit from is invalid.' });
  });

  test('INSUFFICIENT_BALANCE when the commission and its tax are not covered', async () => {
    const fx = defaultFixtures();
    fx.merchants[0].accounts[0].balance = 2.35; // PAN costs 2 + 0.36
    const poor = await testApp({ fixtures: fx });
    const res = await verify(pan, demoHeaders, poor);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect((await verify({ ...pan, debit_from: DEMO.van2 }, demoHeaders, poor)).status).toBe(200);
  });

  test('commission per type comes from the fixtures', async () => {
    const fx = defaultFixtures();
    (fx.merchants[0] as Record<string, unknown>).verification_charges = { PAN: 10 };
    const priced = await testApp({ fixtures: fx });
    const res = await verify(pan, demoHeaders, priced);
    expect([res.body.data.commission, res.body.data.tax]).toEqual([10, 1.8]);
  });

  test('get verification details returns the stored record; another merchant sees it as unknown', async () => {
    const created = await verify(pan);
    const got = await details(created.body.data.verification_id);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(created.body.data);
    const foreign = await details(created.body.data.verification_id, otherHeaders);
    const unknown = await details('VRFNOSUCHTHING000000');
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual(unknown.body);
    expect(foreign.body.error).toEqual({ code: 'GENERIC_EXCEPTION', message: 'Unable to find verification using provided ID' });
  });
});

describe('AADHAAR in two steps', () => {
  const start = (n = '234567890123') => verify({ verification_type: 'AADHAAR', aadhaar: { aadhaar_number: n } });
  const finish = (refId: string, otp: string, n = '234567890123', headers = demoHeaders) =>
    verify({ verification_type: 'AADHAAR', aadhaar: { aadhaar_number: n, otp, ref_id: refId } }, headers);

  test('the number alone sends an OTP and returns a ref_id, uncharged; the right OTP verifies and charges once', async () => {
    const before = (await balance(app, DEMO.van1)).body.data.current_balance;
    const sent = await start();
    expect(sent.status).toBe(200);
    expect(sent.body.data.verification_status).toBe('Pending');
    expect(sent.body.data.commission).toBe(0);
    const refId = sent.body.data.verify_response.ref_id;
    expect(refId).toMatch(/^OTP[0-9]{12}$/);
    expect((await balance(app, DEMO.van1)).body.data.current_balance).toBe(before);

    const wrong = await finish(refId, '654321');
    expect(wrong.status).toBe(200);
    expect(wrong.body.data.verify_response.valid).toBe(false);
    expect(wrong.body.data.verify_response.message).toBe('Invalid OTP');

    const right = await finish(refId, '123456');
    expect(right.body.data.verification_id).toBe(sent.body.data.verification_id);
    expect(right.body.data.verification_status).toBe('Success');
    expect(right.body.data.verify_response).toMatchObject({ valid: true, ref_id: refId, aadhaar_number: 'XXXXXXXX0123' });
    expect(right.body.data.verify_response.name).toEqual(expect.any(String));
    expect(right.body.data.commission).toBe(6);
    const after = (await balance(app, DEMO.van1)).body.data.current_balance;
    expect(Math.round((before - after) * 100)).toBe(600 + 108);

    expect((await details(sent.body.data.verification_id)).body.data).toEqual(right.body.data);
    // A completed request cannot be used again.
    expect((await finish(refId, '123456')).body).toEqual({ success: false, http_code: 400, message: 'The aadhaar.ref id is invalid or has expired.' });
  });

  test('an unknown ref_id, another number, another merchant, or an expired request: 400', async () => {
    const refId = (await start()).body.data.verify_response.ref_id;
    const invalid = { success: false, http_code: 400, message: 'The aadhaar.ref id is invalid or has expired.' };
    expect((await finish('OTP000000000000', '123456')).body).toEqual(invalid);
    expect((await finish(refId, '123456', '345678901234')).body).toEqual(invalid);
    expect(
      (
        await request(app)
          .post('/api/v1/public/verification/')
          .set(otherHeaders)
          .send({
            debit_from: OTHER.van,
            verification_type: 'AADHAAR',
            aadhaar: { aadhaar_number: '234567890123', otp: '123456', ref_id: refId },
          })
      ).body,
    ).toEqual(invalid);
    advance(app, 10 * 60_000);
    expect((await finish(refId, '123456')).body).toEqual(invalid);
  });

  test('the magic Aadhaar number fails even with the right OTP', async () => {
    const refId = (await start('000000000000')).body.data.verify_response.ref_id;
    const res = await finish(refId, '123456', '000000000000');
    expect(res.body.data.verify_response.valid).toBe(false);
  });

  test('otp needs ref_id and ref_id needs otp; the number must be 12 digits', async () => {
    const otpOnly = await verify({ verification_type: 'AADHAAR', aadhaar: { aadhaar_number: '234567890123', otp: '123456' } });
    expect(otpOnly.body.message).toBe('The aadhaar.ref id field is required when aadhaar.otp is present.');
    const refOnly = await verify({ verification_type: 'AADHAAR', aadhaar: { aadhaar_number: '234567890123', ref_id: 'OTP1' } });
    expect(refOnly.body.message).toBe('The aadhaar.otp field is required when aadhaar.ref id is present.');
    const short = await verify({ verification_type: 'AADHAAR', aadhaar: { aadhaar_number: '23456789012' } });
    expect(short.body.message).toBe('The aadhaar.aadhaar number field must be 12 digits.');
  });
});

describe('verification results from the scenario', () => {
  test('numbers the scenario lists as invalid verify as valid: false; others as usual', async () => {
    const scripted = await testApp({
      scenario: {
        name: 'kyc',
        payouts: { default_timeline: [] },
        verification: { invalid: { PAN: ['ABCPE1234F'], BANK: ['50100012345678'] } },
      },
    });
    const pan = await verify({ verification_type: 'PAN', pan: { pan_number: 'ABCPE1234F' } }, demoHeaders, scripted);
    expect(pan.body.data.verify_response.valid).toBe(false);
    const bank = await verify({ verification_type: 'BANK', bank: { account_no: '50100012345678', ifsc_code: 'HDFC0001234' } }, demoHeaders, scripted);
    expect(bank.body.data.verify_response.valid).toBe(false);
    const other = await verify({ verification_type: 'PAN', pan: { pan_number: 'ABCPE1235F' } }, demoHeaders, scripted);
    expect(other.body.data.verify_response.valid).toBe(true);
    expect((await verify({ verification_type: 'PAN', pan: { pan_number: 'ABCPE1234F' } })).body.data.verify_response.valid).toBe(true);
  });
});

test('a driving licence number is accepted in every documented form and verifies the same', async () => {
  const forms = ['MH12 2015 0012345', 'MH-12-2015-0012345', 'MH1220150012345', 'MH12-2015 0012345'];
  const answers = [];
  for (const dl_number of forms) {
    const res = await verify({ verification_type: 'DRIVING_LICENSE', dl: { dl_number, dob: '1990-05-17' } });
    expect(res.status).toBe(200);
    answers.push(res.body.data.verify_response);
  }
  expect(answers[0]).toMatchObject({ dl_number: 'MH1220150012345', valid: true, state: 'Maharashtra' });
  for (const a of answers) expect(a).toEqual(answers[0]);
  const bad = await verify({ verification_type: 'DRIVING_LICENSE', dl: { dl_number: 'MH 12 2015 001234', dob: '1990-05-17' } });
  expect(bad.status).toBe(400);
});
