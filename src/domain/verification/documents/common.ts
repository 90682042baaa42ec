import { createHash } from 'node:crypto';
import type { Faker } from '@faker-js/faker';
import { DateTime } from 'luxon';
import { newFaker } from '../../../faker.js';
import type { VerificationType } from '../../../vocab.js';

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

/** Whether an Aadhaar step 2 brings the OTP the sandbox sent (always AADHAAR_OTP). */
export const aadhaarOtpOk = (fields: Record<string, string | undefined>): boolean => fields.otp === AADHAAR_OTP;

export const GST_STATES: Record<string, string> = {
  '01': 'Jammu and Kashmir',
  '02': 'Himachal Pradesh',
  '03': 'Punjab',
  '04': 'Chandigarh',
  '05': 'Uttarakhand',
  '06': 'Haryana',
  '07': 'Delhi',
  '08': 'Rajasthan',
  '09': 'Uttar Pradesh',
  '10': 'Bihar',
  '11': 'Sikkim',
  '12': 'Arunachal Pradesh',
  '13': 'Nagaland',
  '14': 'Manipur',
  '15': 'Mizoram',
  '16': 'Tripura',
  '17': 'Meghalaya',
  '18': 'Assam',
  '19': 'West Bengal',
  '20': 'Jharkhand',
  '21': 'Odisha',
  '22': 'Chhattisgarh',
  '23': 'Madhya Pradesh',
  '24': 'Gujarat',
  '26': 'Dadra and Nagar Haveli and Daman and Diu',
  '27': 'Maharashtra',
  '29': 'Karnataka',
  '30': 'Goa',
  '31': 'Lakshadweep',
  '32': 'Kerala',
  '33': 'Tamil Nadu',
  '34': 'Puducherry',
  '35': 'Andaman and Nicobar Islands',
  '36': 'Telangana',
  '37': 'Andhra Pradesh',
  '38': 'Ladakh',
};

/** Two-letter state codes of driving licences and company registrations. */
export const STATE_CODES: Record<string, { state: string; city: string }> = {
  AP: { state: 'Andhra Pradesh', city: 'Vijayawada' },
  AS: { state: 'Assam', city: 'Guwahati' },
  BR: { state: 'Bihar', city: 'Patna' },
  CG: { state: 'Chhattisgarh', city: 'Raipur' },
  CH: { state: 'Chandigarh', city: 'Chandigarh' },
  CT: { state: 'Chhattisgarh', city: 'Raipur' },
  DL: { state: 'Delhi', city: 'New Delhi' },
  GA: { state: 'Goa', city: 'Panaji' },
  GJ: { state: 'Gujarat', city: 'Ahmedabad' },
  HP: { state: 'Himachal Pradesh', city: 'Shimla' },
  HR: { state: 'Haryana', city: 'Gurugram' },
  JH: { state: 'Jharkhand', city: 'Ranchi' },
  JK: { state: 'Jammu and Kashmir', city: 'Srinagar' },
  KA: { state: 'Karnataka', city: 'Bengaluru' },
  KL: { state: 'Kerala', city: 'Kochi' },
  MH: { state: 'Maharashtra', city: 'Mumbai' },
  MP: { state: 'Madhya Pradesh', city: 'Bhopal' },
  OD: { state: 'Odisha', city: 'Bhubaneswar' },
  OR: { state: 'Odisha', city: 'Bhubaneswar' },
  PB: { state: 'Punjab', city: 'Ludhiana' },
  RJ: { state: 'Rajasthan', city: 'Jaipur' },
  TG: { state: 'Telangana', city: 'Hyderabad' },
  TN: { state: 'Tamil Nadu', city: 'Chennai' },
  TS: { state: 'Telangana', city: 'Hyderabad' },
  UK: { state: 'Uttarakhand', city: 'Dehradun' },
  UP: { state: 'Uttar Pradesh', city: 'Lucknow' },
  WB: { state: 'West Bengal', city: 'Kolkata' },
};

const docFaker = newFaker();

/** A faker seeded by the document alone: the same number always gives the same details. */
export function fakerFor(type: VerificationType, doc: string): Faker {
  docFaker.seed(createHash('sha256').update(`${type}:${doc}`).digest().readUInt32BE(0));
  return docFaker;
}

export const isoDate = (d: DateTime) => d.toISODate() as string;
/** Made at first use, not at load: the zone's first use loads time-zone data (~10 ms of start-up). */
let fixedNow: DateTime | null = null;

export function pastDate(f: Faker, fromYearsAgo: number, toYearsAgo: number): DateTime {
  fixedNow ??= DateTime.fromISO('2026-01-01T00:00:00', { zone: 'Asia/Kolkata' });
  const from = fixedNow.minus({ years: fromYearsAgo }).toJSDate();
  const to = fixedNow.minus({ years: toYearsAgo }).toJSDate();
  return DateTime.fromJSDate(f.date.between({ from, to }), { zone: 'Asia/Kolkata' }).startOf('day');
}

export function personName(f: Faker): string {
  return `${f.person.firstName()} ${f.person.lastName()}`.replace(/[^A-Za-z ]/g, '').toUpperCase();
}

/** A city name alone (the en_IN locale appends ", India" to some). */
export function cityName(f: Faker): string {
  return f.location.city().split(',')[0].trim();
}

export function address(f: Faker, state?: string, city?: string) {
  return {
    line: `${f.location.buildingNumber()}, ${f.location.street()}`,
    city: city ?? cityName(f),
    state: state ?? f.location.state(),
    pincode: f.string.numeric({ length: 6, allowLeadingZeros: false }),
  };
}

export type VerifyResponse = Record<string, unknown> & { valid: boolean; message: string };

/**
 * One document type's verification: the response for `doc` (with its request `fields`), from a
 * faker seeded by the number; `magic` when the number must verify as invalid.
 */
export type DocumentVerifier = (f: Faker, doc: string, fields: Record<string, string | undefined>, magic: boolean) => VerifyResponse;
