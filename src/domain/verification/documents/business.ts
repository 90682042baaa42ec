import { DateTime } from 'luxon';
import { address, type DocumentVerifier, GST_STATES, isoDate, pastDate, STATE_CODES } from './common.js';

/** Company (CIN) and tax registration (GSTIN) verification. */

const COMPANY_CLASSES: Record<string, string> = {
  PTC: 'Private',
  PLC: 'Public',
  OPC: 'One Person Company',
  FTC: 'Subsidiary of Foreign Company',
  GOI: 'Government of India Company',
  SGC: 'State Government Company',
  NPL: 'Not for Profit License Company',
  ULL: 'Unlimited Liability Company',
  GAP: 'Guarantee and Association Company',
};

export const verifyGstin: DocumentVerifier = (f, doc, _fields, magic) => {
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
};

export const verifyCin: DocumentVerifier = (f, doc, _fields, magic) => {
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
};
