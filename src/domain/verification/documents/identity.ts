import { DateTime } from 'luxon';
import { aadhaarOtpOk, address, cityName, type DocumentVerifier, GST_STATES, isoDate, pastDate, personName, STATE_CODES } from './common.js';

/** A person's documents: PAN, driving licence, voter ID, passport, Aadhaar. */

const PAN_HOLDER_TYPES: Record<string, string> = {
  P: 'Individual',
  C: 'Company',
  H: 'Hindu Undivided Family',
  F: 'Firm',
  A: 'Association of Persons',
  T: 'Trust',
  B: 'Body of Individuals',
  L: 'Local Authority',
  J: 'Artificial Juridical Person',
  G: 'Government',
};

export const verifyPan: DocumentVerifier = (f, doc, fields, magic) => {
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
};

export const verifyDrivingLicense: DocumentVerifier = (f, doc, fields, magic) => {
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
};

export const verifyVoterId: DocumentVerifier = (f, doc, _fields, magic) => {
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
};

export const verifyPassport: DocumentVerifier = (f, doc, fields, magic) => {
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
};

export const verifyAadhaar: DocumentVerifier = (f, doc, fields, magic) => {
  const otpOk = aadhaarOtpOk(fields);
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
};
