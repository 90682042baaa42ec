import { createHash } from 'node:crypto';
import { Faker, base, en, en_IN } from '@faker-js/faker';
import { DateTime } from 'luxon';
import type { VerificationType } from '../../vocab.js';
import { bankForIfsc } from '../banks.js';

/** One document number per type that always verifies as `valid: false` (SPEC 7). */
export const MAGIC_INVALID: Record<VerificationType, string> = {
  BANK: '000000000000',
  PAN: 'ZZZZZ0000Z',
  DRIVING_LICENSE: 'ZZ0000000000000',
  VOTER_ID: 'ZZZ0000000',
  PASSPORT: 'ZZ0000000000',
  CIN: 'U00000ZZ0000ZZZ000000',
  GSTIN: '00ZZZZZ0000Z1Z0',
  AADHAAR: '000000000000',
  IFSC: 'ZZZZ0000000',
};

/** The Aadhaar OTP that verifies; any other gives `valid: false`. */
export const AADHAAR_OTP = '123456';

const GST_STATES: Record<string, string> = {
  '01': 'Jammu and Kashmir', '02': 'Himachal Pradesh', '03': 'Punjab', '04': 'Chandigarh', '05': 'Uttarakhand',
  '06': 'Haryana', '07': 'Delhi', '08': 'Rajasthan', '09': 'Uttar Pradesh', '10': 'Bihar', '11': 'Sikkim',
  '12': 'Arunachal Pradesh', '13': 'Nagaland', '14': 'Manipur', '15': 'Mizoram', '16': 'Tripura', '17': 'Meghalaya',
  '18': 'Assam', '19': 'West Bengal', '20': 'Jharkhand', '21': 'Odisha', '22': 'Chhattisgarh', '23': 'Madhya Pradesh',
  '24': 'Gujarat', '26': 'Dadra and Nagar Haveli and Daman and Diu', '27': 'Maharashtra', '29': 'Karnataka', '30': 'Goa',
  '31': 'Lakshadweep', '32': 'Kerala', '33': 'Tamil Nadu', '34': 'Puducherry', '35': 'Andaman and Nicobar Islands',
  '36': 'Telangana', '37': 'Andhra Pradesh', '38': 'Ladakh',
};

/** Two-letter state codes of driving licences and company registrations. */
const STATE_CODES: Record<string, { state: string; city: string }> = {
  AP: { state: 'Andhra Pradesh', city: 'Vijayawada' }, AS: { state: 'Assam', city: 'Guwahati' },
  BR: { state: 'Bihar', city: 'Patna' }, CG: { state: 'Chhattisgarh', city: 'Raipur' },
  CH: { state: 'Chandigarh', city: 'Chandigarh' }, CT: { state: 'Chhattisgarh', city: 'Raipur' },
  DL: { state: 'Delhi', city: 'New Delhi' }, GA: { state: 'Goa', city: 'Panaji' },
  GJ: { state: 'Gujarat', city: 'Ahmedabad' }, HP: { state: 'Himachal Pradesh', city: 'Shimla' },
  HR: { state: 'Haryana', city: 'Gurugram' }, JH: { state: 'Jharkhand', city: 'Ranchi' },
  JK: { state: 'Jammu and Kashmir', city: 'Srinagar' }, KA: { state: 'Karnataka', city: 'Bengaluru' },
  KL: { state: 'Kerala', city: 'Kochi' }, MH: { state: 'Maharashtra', city: 'Mumbai' },
  MP: { state: 'Madhya Pradesh', city: 'Bhopal' }, OD: { state: 'Odisha', city: 'Bhubaneswar' },
  OR: { state: 'Odisha', city: 'Bhubaneswar' }, PB: { state: 'Punjab', city: 'Ludhiana' },
  RJ: { state: 'Rajasthan', city: 'Jaipur' }, TG: { state: 'Telangana', city: 'Hyderabad' },
  TN: { state: 'Tamil Nadu', city: 'Chennai' }, TS: { state: 'Telangana', city: 'Hyderabad' },
  UK: { state: 'Uttarakhand', city: 'Dehradun' }, UP: { state: 'Uttar Pradesh', city: 'Lucknow' },
  WB: { state: 'West Bengal', city: 'Kolkata' },
};

const PAN_HOLDER_TYPES: Record<string, string> = {
  P: 'Individual', C: 'Company', H: 'Hindu Undivided Family', F: 'Firm', A: 'Association of Persons',
  T: 'Trust', B: 'Body of Individuals', L: 'Local Authority', J: 'Artificial Juridical Person', G: 'Government',
};

const COMPANY_CLASSES: Record<string, string> = {
  PTC: 'Private', PLC: 'Public', OPC: 'One Person Company', FTC: 'Subsidiary of Foreign Company',
  GOI: 'Government of India Company', SGC: 'State Government Company', NPL: 'Not for Profit License Company',
  ULL: 'Unlimited Liability Company', GAP: 'Guarantee and Association Company',
};

const docFaker = new Faker({ locale: [en_IN, en, base] });

/** A faker seeded by the document alone: the same number always gives the same details. */
function fakerFor(type: VerificationType, doc: string): Faker {
  docFaker.seed(createHash('sha256').update(`${type}:${doc}`).digest().readUInt32BE(0));
  return docFaker;
}

const isoDate = (d: DateTime) => d.toISODate() as string;
const FIXED_NOW = DateTime.fromISO('2026-01-01T00:00:00', { zone: 'Asia/Kolkata' });

function pastDate(f: Faker, fromYearsAgo: number, toYearsAgo: number): DateTime {
  const from = FIXED_NOW.minus({ years: fromYearsAgo }).toJSDate();
  const to = FIXED_NOW.minus({ years: toYearsAgo }).toJSDate();
  return DateTime.fromJSDate(f.date.between({ from, to }), { zone: 'Asia/Kolkata' }).startOf('day');
}

function personName(f: Faker): string {
  return `${f.person.firstName()} ${f.person.lastName()}`.replace(/[^A-Za-z ]/g, '').toUpperCase();
}

/** A city name alone (the en_IN locale appends ", India" to some). */
function cityName(f: Faker): string {
  return f.location.city().split(',')[0].trim();
}

function address(f: Faker, state?: string, city?: string) {
  return {
    line: `${f.location.buildingNumber()}, ${f.location.street()}`,
    city: city ?? cityName(f),
    state: state ?? f.location.state(),
    pincode: f.string.numeric({ length: 6, allowLeadingZeros: false }),
  };
}

export type VerifyResponse = Record<string, unknown> & { valid: boolean; message: string };

/** The number a verification request verifies, by type. */
export function documentNumber(type: VerificationType, fields: Record<string, string | undefined>): string {
  switch (type) {
    case 'BANK':
      return fields.account_no ?? '';
    case 'PAN':
      return fields.pan_number ?? '';
    case 'DRIVING_LICENSE':
      return (fields.dl_number ?? '').replace(/[ -]/g, '');
    case 'VOTER_ID':
      return fields.voter_id_number ?? '';
    case 'PASSPORT':
      return fields.file_number ?? '';
    case 'CIN':
      return fields.cin_number ?? '';
    case 'GSTIN':
      return fields.gstin_number ?? '';
    case 'AADHAAR':
      return fields.aadhaar_number ?? '';
    case 'IFSC':
      return fields.ifsc_code ?? '';
  }
}

function ifscDetails(f: Faker, ifsc: string) {
  const bank = bankForIfsc(ifsc);
  if (!bank) return null;
  const place = address(f);
  const branch = `${place.city} ${f.helpers.arrayElement(['Main', 'Market', 'Station Road', 'Civil Lines', 'MG Road'])}`;
  return {
    ifsc,
    bank,
    branch: branch.toUpperCase(),
    address: `${place.line}, ${place.city}, ${place.state} ${place.pincode}`.toUpperCase(),
    city: place.city.toUpperCase(),
    district: place.city.toUpperCase(),
    state: place.state.toUpperCase(),
    micr: f.string.numeric({ length: 9, allowLeadingZeros: false }),
    contact: `+91${f.string.numeric({ length: 10, allowLeadingZeros: false })}`,
    imps: true,
    neft: true,
    rtgs: true,
    upi: true,
  };
}

/**
 * The verify_response of a well-formed document: realistic details generated from the number,
 * `valid: false` for the type's magic number, a number the scenario lists as invalid, or a number
 * whose structure does not hold.
 */
export function verifyDocument(
  type: VerificationType,
  fields: Record<string, string | undefined>,
  scenarioInvalid: ReadonlySet<string> = new Set(),
): VerifyResponse {
  const doc = documentNumber(type, fields);
  const f = fakerFor(type, doc);
  const magic = doc === MAGIC_INVALID[type] || scenarioInvalid.has(doc);
  switch (type) {
    case 'PAN': {
      const holder = PAN_HOLDER_TYPES[doc[3]];
      const valid = !magic && holder !== undefined;
      const name = holder === 'Individual' ? personName(f) : f.company.name().toUpperCase();
      return {
        pan: doc,
        type: holder ?? '',
        reference_id: f.number.int({ min: 10_000_000, max: 99_999_999 }),
        name_provided: fields.name ?? '',
        registered_name: valid ? name : '',
        father_name: valid && holder === 'Individual' ? personName(f) : '',
        valid,
        message: valid ? 'PAN verified successfully' : 'Invalid PAN',
      };
    }
    case 'BANK': {
      const ifsc = fields.ifsc_code ?? '';
      const branch = ifscDetails(f, ifsc);
      const valid = !magic && branch !== null;
      return {
        account_exists: valid,
        name_at_bank: valid ? personName(f) : '',
        account_number: doc,
        ifsc,
        bank_name: branch?.bank ?? '',
        branch: branch?.branch ?? '',
        city: branch?.city ?? '',
        utr: valid ? f.string.numeric({ length: 12, allowLeadingZeros: false }) : '',
        amount_deposited: valid ? 1 : 0,
        valid,
        message: valid
          ? 'Bank account verified successfully'
          : branch === null
            ? 'Invalid IFSC code'
            : 'Invalid account number or the account does not exist',
      };
    }
    case 'IFSC': {
      const details = magic ? null : ifscDetails(f, doc);
      return details
        ? { ...details, valid: true, message: 'IFSC verified successfully' }
        : { ifsc: doc, valid: false, message: 'IFSC code not found' };
    }
    case 'GSTIN': {
      const state = GST_STATES[doc.slice(0, 2)];
      const valid = !magic && state !== undefined;
      if (!valid) return { gstin: doc, valid: false, message: 'Invalid GSTIN' };
      const legal = f.company.name().toUpperCase();
      const place = address(f, state);
      return {
        gstin: doc,
        pan: doc.slice(2, 12),
        legal_name: legal,
        trade_name: f.helpers.arrayElement([legal, `${f.word.noun().toUpperCase()} ${f.company.buzzNoun().toUpperCase()}`]),
        status: 'Active',
        registration_date: isoDate(pastDate(f, 8, 1)),
        constitution_of_business: f.helpers.arrayElement(['Private Limited Company', 'Proprietorship', 'Partnership', 'Public Limited Company']),
        taxpayer_type: f.helpers.arrayElement(['Regular', 'Composition']),
        state,
        state_code: doc.slice(0, 2),
        principal_place_of_business: `${place.line}, ${place.city}, ${state} ${place.pincode}`,
        valid: true,
        message: 'GSTIN verified successfully',
      };
    }
    case 'CIN': {
      const cls = COMPANY_CLASSES[doc.slice(12, 15)];
      const region = STATE_CODES[doc.slice(6, 8)];
      const year = Number(doc.slice(8, 12));
      const valid = !magic && cls !== undefined && year >= 1850 && year <= 2026;
      if (!valid) return { cin: doc, valid: false, message: 'Invalid CIN' };
      const incorporated = DateTime.fromObject({ year, month: f.number.int({ min: 1, max: 12 }), day: f.number.int({ min: 1, max: 28 }) });
      const authorised = f.number.int({ min: 1, max: 500 }) * 100_000;
      return {
        cin: doc,
        company_name: `${f.company.name()} ${cls === 'Public' ? 'Limited' : 'Private Limited'}`.toUpperCase(),
        company_status: 'Active',
        company_class: cls,
        listed: doc[0] === 'L',
        incorporation_date: isoDate(incorporated),
        registrar_of_companies: `RoC-${region?.city ?? 'Delhi'}`,
        authorised_capital: authorised,
        paid_up_capital: Math.floor(authorised * f.number.float({ min: 0.1, max: 1, fractionDigits: 2 })),
        email: f.internet.email().toLowerCase(),
        registered_address: Object.values(address(f, region?.state, region?.city)).join(', '),
        valid: true,
        message: 'CIN verified successfully',
      };
    }
    case 'DRIVING_LICENSE': {
      const region = STATE_CODES[doc.slice(0, 2)];
      const issueYear = Number(doc.slice(4, 8));
      const dob = DateTime.fromISO(fields.dob ?? '', { zone: 'Asia/Kolkata' });
      const valid = !magic && region !== undefined && issueYear >= 1950 && issueYear <= 2026 && dob.isValid;
      if (!valid) return { dl_number: doc, valid: false, message: 'Invalid driving licence number' };
      const issued = DateTime.fromObject({ year: issueYear, month: f.number.int({ min: 1, max: 12 }), day: f.number.int({ min: 1, max: 28 }) });
      return {
        dl_number: doc,
        name: personName(f),
        father_or_husband_name: personName(f),
        dob: fields.dob,
        date_of_issue: isoDate(issued),
        valid_upto_non_transport: isoDate(DateTime.max(issued.plus({ years: 20 }), dob.plus({ years: 40 }))),
        valid_upto_transport: isoDate(issued.plus({ years: 5 })),
        issuing_authority: `RTO ${region.city.toUpperCase()}`,
        state: region.state,
        vehicle_classes: f.helpers.arrayElements(['MCWG', 'LMV', 'LMV-TR', 'TRANS'], { min: 1, max: 2 }),
        address: Object.values(address(f, region.state, region.city)).join(', '),
        status: 'Active',
        valid: true,
        message: 'Driving licence verified successfully',
      };
    }
    case 'VOTER_ID': {
      if (magic) return { epic_number: doc, valid: false, message: 'Invalid EPIC number' };
      const gender = f.helpers.arrayElement(['M', 'F']);
      const state = f.helpers.arrayElement(Object.values(GST_STATES));
      return {
        epic_number: doc,
        name: personName(f),
        relative_name: personName(f),
        relation_type: f.helpers.arrayElement(['Father', 'Mother', 'Husband']),
        gender,
        age: f.number.int({ min: 18, max: 90 }),
        state,
        district: cityName(f).toUpperCase(),
        assembly_constituency: `${cityName(f)} ${f.helpers.arrayElement(['North', 'South', 'East', 'West', 'Central'])}`.toUpperCase(),
        parliamentary_constituency: cityName(f).toUpperCase(),
        polling_station: `Government School, ${f.location.street()}`,
        part_number: f.number.int({ min: 1, max: 400 }),
        serial_number: f.number.int({ min: 1, max: 1500 }),
        valid: true,
        message: 'Voter ID verified successfully',
      };
    }
    case 'PASSPORT': {
      const dob = DateTime.fromISO(fields.dob ?? '', { zone: 'Asia/Kolkata' });
      if (magic || !dob.isValid) return { file_number: doc, valid: false, message: 'Invalid passport file number' };
      const issued = pastDate(f, 9, 0);
      return {
        file_number: doc,
        name: personName(f),
        dob: fields.dob,
        passport_number: `${f.string.alpha({ length: 1, casing: 'upper' })}${f.string.numeric({ length: 7, allowLeadingZeros: false })}`,
        date_of_issue: isoDate(issued),
        date_of_expiry: isoDate(issued.plus({ years: 10 }).minus({ days: 1 })),
        place_of_issue: f.helpers.arrayElement(['MUMBAI', 'DELHI', 'BENGALURU', 'CHENNAI', 'KOLKATA', 'HYDERABAD', 'PUNE']),
        application_type: f.helpers.arrayElement(['Normal', 'Tatkaal']),
        application_received_on: isoDate(issued.minus({ days: f.number.int({ min: 7, max: 45 }) })),
        valid: true,
        message: 'Passport verified successfully',
      };
    }
    case 'AADHAAR': {
      const otpOk = fields.otp === AADHAAR_OTP;
      const valid = !magic && otpOk;
      const base = { ref_id: fields.ref_id ?? '', aadhaar_number: `XXXXXXXX${doc.slice(8)}` };
      if (!valid) return { ...base, valid: false, message: magic ? 'Invalid Aadhaar number' : 'Invalid OTP' };
      const place = address(f);
      return {
        ...base,
        name: personName(f),
        gender: f.helpers.arrayElement(['M', 'F']),
        dob: isoDate(pastDate(f, 70, 18)),
        care_of: `S/O ${personName(f)}`,
        address: { house: place.line, district: place.city, state: place.state, pincode: place.pincode, country: 'India' },
        mobile_linked: true,
        valid: true,
        message: 'Aadhaar verified successfully',
      };
    }
  }
}
