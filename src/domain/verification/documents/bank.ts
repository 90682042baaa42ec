import type { Faker } from '@faker-js/faker';
import { bankForIfsc } from '../../banks.js';
import { address, type DocumentVerifier, personName } from './common.js';

/** Bank account and IFSC verification: the branch from the IFSC's bank table, details generated. */

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

export const verifyBank: DocumentVerifier = (f, doc, fields, magic) => {
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
    message: valid ? 'Bank account verified successfully' : branch === null ? 'Invalid IFSC code' : 'Invalid account number or the account does not exist',
  };
};

export const verifyIfsc: DocumentVerifier = (f, doc, _fields, magic) => {
  const details = magic ? null : ifscDetails(f, doc);
  return details ? { ...details, valid: true, message: 'IFSC verified successfully' } : { ifsc: doc, valid: false, message: 'IFSC code not found' };
};
