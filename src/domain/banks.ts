/**
 * Banks by the first four letters of their IFSC. Used for beneficiary `bank_name` and the IFSC
 * and BANK verifications; an IFSC whose prefix is not here is "not found".
 */
export const BANKS_BY_IFSC_PREFIX: Record<string, string> = {
  AIRP: 'Airtel Payments Bank',
  ALLA: 'Allahabad Bank',
  AUBL: 'AU Small Finance Bank',
  BARB: 'Bank of Baroda',
  BKID: 'Bank of India',
  CBIN: 'Central Bank of India',
  CITI: 'Citibank',
  CNRB: 'Canara Bank',
  CSBK: 'CSB Bank',
  DBSS: 'DBS Bank India',
  DCBL: 'DCB Bank',
  ESFB: 'Equitas Small Finance Bank',
  FDRL: 'Federal Bank',
  HDFC: 'HDFC Bank',
  HSBC: 'HSBC',
  IBKL: 'IDBI Bank',
  ICIC: 'ICICI Bank',
  IDFB: 'IDFC FIRST Bank',
  IDIB: 'Indian Bank',
  INDB: 'IndusInd Bank',
  IOBA: 'Indian Overseas Bank',
  JAKA: 'Jammu and Kashmir Bank',
  KARB: 'Karnataka Bank',
  KKBK: 'Kotak Mahindra Bank',
  KVBL: 'Karur Vysya Bank',
  MAHB: 'Bank of Maharashtra',
  PSIB: 'Punjab and Sind Bank',
  PUNB: 'Punjab National Bank',
  PYTM: 'Paytm Payments Bank',
  RATN: 'RBL Bank',
  SBIN: 'State Bank of India',
  SCBL: 'Standard Chartered Bank',
  SIBL: 'South Indian Bank',
  TMBL: 'Tamilnad Mercantile Bank',
  UBIN: 'Union Bank of India',
  UCBA: 'UCO Bank',
  UTIB: 'Axis Bank',
  YESB: 'Yes Bank',
};

export function bankForIfsc(ifsc: string): string | null {
  return BANKS_BY_IFSC_PREFIX[ifsc.slice(0, 4)] ?? null;
}
