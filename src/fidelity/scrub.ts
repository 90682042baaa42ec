import type { HarEntry } from '../observe/har.js';

/**
 * What the recorder keeps of a real session must hold no credential and no value the merchant
 * named with `--scrub`, yet still be replayable: each such value becomes a placeholder of the same
 * shape (digits of the same length, an e-mail, an IFSC), and the same value gets the same
 * placeholder everywhere in the file, so a beneficiary created in one entry is still the one asked
 * for in the next. One Scrubber lives as long as the file it scrubs.
 */

/** Credential headers, as the API spells them; matched without regard to case. Cookies can carry a session, so they go too. */
export const CREDENTIAL_HEADERS = ['x-api-key', 'x-api-secret', 'AccessToken', 'Authorization', 'x-merchant-email', 'MerchantId', 'Cookie', 'Set-Cookie'];

/** Shorter values are replaced only in their own field or header: elsewhere they would hit unrelated text. */
export const MIN_REPLACED_LENGTH = 4;

const CREDENTIALS = new Set(CREDENTIAL_HEADERS.map((h) => h.toLowerCase()));
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const IFSC = /^[A-Z]{4}0[A-Z0-9]{6}$/;
const DIGITS = /^\d+$/;
const EMAIL_PLACEHOLDER = (n: number) => `scrubbed-${n}@scrubbed.invalid`;

/**
 * The reference spells one datum differently on different calls (the payout's `account_number` is
 * the beneficiary's `bank_account_number` and the bank check's `bank.account_no`): naming any one
 * of a group scrubs all of them. `parent.key` is the key only under that parent: the balance
 * check's `account_no` is the merchant's VAN, not a payee's account.
 */
export const FIELD_ALIASES: readonly (readonly string[])[] = [
  ['account_number', 'bank_account_number', 'bank.account_no'],
  ['beneficiary_mobile', 'bene_mobile_no', 'mobile_no'],
  ['beneficiary_email', 'bene_email', 'email_id'],
  ['beneficiary_name', 'bene_name', 'name_provided', 'registered_name'],
];

/** `--scrub` values: repeatable and comma-separated, trimmed, each once. */
export function scrubFields(values: readonly string[]): string[] {
  return [
    ...new Set(
      values
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  ];
}

const jsonEscaped = (s: string) => JSON.stringify(s).slice(1, -1);
const formEncoded = (s: string) => new URLSearchParams({ v: s }).toString().slice(2);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A string or number of a JSON text, where it stands, and the scrubbed field it is under (nearest key that is one). */
interface Scalar {
  start: number;
  end: number;
  kind: 'key' | 'string' | 'number';
  value: string;
  field: string | null;
}

/**
 * The scalars of a JSON text; 'not-json'; or 'too-deep' for JSON nested past what the scanner's
 * recursion takes. `isField` is asked of each key with the key of the object it is in.
 */
function jsonScalars(text: string, isField: (key: string, parent: string | null) => boolean): Scalar[] | 'not-json' | 'too-deep' {
  try {
    JSON.parse(text);
  } catch {
    return 'not-json';
  }
  const out: Scalar[] = [];
  let i = 0;
  const space = () => {
    while (/\s/.test(text[i] ?? '')) i++;
  };
  const string = (): string => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (field: string | null, parent: string | null): void => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        let inner = field;
        if (c === '{') {
          space();
          const start = i;
          const key = string();
          out.push({ start, end: i, kind: 'key', value: key, field: null });
          if (isField(key, parent)) inner = parent === null ? key : `${parent}.${key}`;
          space();
          i++; // the colon
          value(inner, key);
        } else value(inner, parent);
        space();
        if (text[i++] === close) return;
      }
    }
    const start = i;
    if (c === '"') {
      const s = string();
      out.push({ start, end: i, kind: 'string', value: s, field });
      return;
    }
    const token = /-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null/y;
    token.lastIndex = i;
    const m = token.exec(text) as RegExpExecArray;
    i += m[0].length;
    if (c !== 't' && c !== 'f' && c !== 'n') out.push({ start, end: i, kind: 'number', value: m[0], field });
  };
  try {
    value(null, null);
  } catch {
    return 'too-deep';
  }
  return out;
}

/** `a=1&b=2` pairs with their raw text, decoded (`+` as a space); a malformed escape is read as it is. */
function formPairs(text: string): Array<{ raw: string; key: string; value: string | null }> {
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return text.split('&').map((raw) => {
    const eq = raw.indexOf('=');
    return eq < 0 ? { raw, key: decode(raw), value: null } : { raw, key: decode(raw.slice(0, eq)), value: decode(raw.slice(eq + 1)) };
  });
}

const isForm = (mimeType: string) => /application\/x-www-form-urlencoded/i.test(mimeType);

export class Scrubber {
  /** Every value seen so far → its placeholder. */
  private readonly known = new Map<string, string>();
  private readonly counters = new Map<string, number>();
  /** A key as written, lower-cased → the `--scrub` name it stands for (itself or an alias of it). */
  private readonly fieldNames = new Map<string, string>();
  private everywhere: { pattern: RegExp; replacement: Map<string, string> } | null = null;

  constructor(readonly fields: readonly string[]) {
    for (const f of fields) {
      const group = FIELD_ALIASES.find((g) => g.includes(f.toLowerCase())) ?? [f];
      for (const name of [f, ...group]) if (!this.fieldNames.has(name.toLowerCase())) this.fieldNames.set(name.toLowerCase(), f);
    }
  }

  /** What is scrubbed, for the file's head: the names given, and the reference's other names for them. */
  get scrubbed(): { headers: string[]; fields: string[]; aliases: string[] } {
    const given = new Set(this.fields.map((f) => f.toLowerCase()));
    return { headers: [...CREDENTIAL_HEADERS], fields: [...this.fields], aliases: [...this.fieldNames.keys()].filter((k) => !given.has(k)) };
  }

  /**
   * The scrubbed field a key names, or null: the key in any case, under its parent for an alias
   * that needs one; a form's nested key (`aadhaar[aadhaar_number]`, `bank.account_no`) by its
   * last segment and the one before.
   */
  private fieldOf(key: string, parent: string | null = null): string | null {
    const segments = key
      .toLowerCase()
      .split(/[[\].]+/)
      .filter(Boolean);
    const last = segments.pop();
    if (last === undefined) return null;
    const above = segments.pop() ?? parent?.toLowerCase();
    return (
      this.fieldNames.get(key.toLowerCase()) ?? this.fieldNames.get(last) ?? (above === undefined ? null : (this.fieldNames.get(`${above}.${last}`) ?? null))
    );
  }

  /** Whether a body that could not be parsed names a scrubbed field: its value cannot be found, so the body is not kept. */
  private namesField(text: string): boolean {
    const lower = text.toLowerCase();
    for (const name of this.fieldNames.keys()) if (lower.includes(name.split('.').pop() as string)) return true;
    return false;
  }

  private next(counter: string): number {
    const n = (this.counters.get(counter) ?? 0) + 1;
    this.counters.set(counter, n);
    return n;
  }

  /** The value's placeholder: the one it already has, or a new one made by `make`. */
  private placeholder(value: string, make: () => string): string {
    let p = this.known.get(value);
    if (p === undefined) {
      p = make();
      this.known.set(value, p);
      this.everywhere = null;
    }
    return p;
  }

  private forHeader(name: string, value: string): string {
    return this.placeholder(value, () =>
      name === 'x-merchant-email' ? EMAIL_PLACEHOLDER(this.next('email')) : `scrubbed-${name}-${this.next(`header:${name}`)}`,
    );
  }

  private forField(field: string, value: string): string {
    return this.placeholder(value, () => {
      if (DIGITS.test(value)) {
        const n = String(this.next('digits'));
        // Same length as the value while the counter fits in it; longer (still digits) after.
        return `9${n.padStart(value.length - 1, '0')}`;
      }
      if (EMAIL.test(value)) return EMAIL_PLACEHOLDER(this.next('email'));
      // The bank's code is no one's data, and the sandbox (like the provider) may answer by it.
      if (IFSC.test(value)) return `${value.slice(0, 4)}0${String(this.next('ifsc')).padStart(6, '0')}`;
      return `scrubbed-${field}-${this.next(`field:${field}`)}`;
    });
  }

  /** A credential header's new value (Authorization keeps its scheme), or null for any other header. */
  private header(name: string, value: string): string | null {
    const lower = name.toLowerCase();
    if (!CREDENTIALS.has(lower) || value === '') return null;
    const scheme = lower === 'authorization' ? /^(\S+)(\s+)(\S.*)$/.exec(value) : null;
    return scheme ? `${scheme[1]}${scheme[2]}${this.forHeader(lower, scheme[3] as string)}` : this.forHeader(lower, value);
  }

  /**
   * Every known value of MIN_REPLACED_LENGTH or more replaced in `s`, as written raw, URL-encoded,
   * form-encoded or JSON-escaped, in any case (an e-mail address is written as the user typed it).
   */
  private replaceKnown(s: string): string {
    if (this.known.size === 0 || s === '') return s;
    if (this.everywhere === null) {
      const replacement = new Map<string, string>();
      // Placeholders map to themselves, so a real value that happens to sit inside one is not replaced there.
      const set = (from: string, to: string | null) => {
        const key = from.toLowerCase();
        if (!replacement.has(key)) replacement.set(key, to ?? from);
      };
      for (const p of this.known.values()) for (const form of [p, encodeURIComponent(p), formEncoded(p), jsonEscaped(p)]) set(form, null);
      for (const [real, p] of this.known) {
        if (real.length < MIN_REPLACED_LENGTH) continue;
        set(real, p);
        set(encodeURIComponent(real), encodeURIComponent(p));
        set(formEncoded(real), formEncoded(p));
        set(jsonEscaped(real), jsonEscaped(p));
      }
      const alternatives = [...replacement.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.everywhere = { pattern: new RegExp(alternatives.join('|'), 'gi'), replacement };
    }
    const { pattern, replacement } = this.everywhere;
    // A placeholder maps to itself as it was stored; `m` as found keeps its own case then.
    return s.replace(pattern, (m) => {
      const to = replacement.get(m.toLowerCase());
      return to === undefined || to.toLowerCase() === m.toLowerCase() ? m : to;
    });
  }

  /** Learns the scrubbed fields' values of a body (JSON or a form), so that later steps know them everywhere. */
  private learnBody(text: string | undefined, mimeType: string): void {
    if (text === undefined) return;
    const scalars = jsonScalars(text, (k, parent) => this.fieldOf(k, parent) !== null);
    if (Array.isArray(scalars)) {
      for (const s of scalars) if (s.field !== null && s.kind !== 'key' && s.value !== '') this.forField(this.fieldOf(s.field) as string, s.value);
    } else if (scalars === 'not-json' && isForm(mimeType)) {
      this.learnPairs(text);
    }
  }

  private learnPairs(text: string): void {
    for (const p of formPairs(text)) {
      const field = this.fieldOf(p.key);
      if (field !== null && p.value) this.forField(field, p.value);
    }
  }

  /**
   * A body with every scrubbed field's value replaced in place; the rest of the text is left byte
   * for byte. Or why it is not kept: JSON too deep to scan, or a body neither JSON nor a form that
   * names a scrubbed field — either way its values cannot be found.
   */
  private body(text: string, mimeType: string): string | { notKept: string } {
    const scalars = jsonScalars(text, (k, parent) => this.fieldOf(k, parent) !== null);
    if (scalars === 'too-deep') return { notKept: 'JSON nested too deep to scrub: not kept' };
    if (scalars === 'not-json') {
      if (isForm(mimeType)) return this.pairs(text);
      if (this.namesField(text)) return { notKept: 'neither JSON nor a form, and it names a scrubbed field: not kept' };
      return this.replaceKnown(text);
    }
    let out = '';
    let at = 0;
    for (const s of scalars) {
      let next: string;
      if (s.field !== null && s.kind !== 'key' && s.value !== '') {
        const p = this.forField(this.fieldOf(s.field) as string, s.value);
        next = s.kind === 'number' && DIGITS.test(p) ? p : JSON.stringify(p);
      } else if (s.kind === 'number') {
        const p = s.value.length >= MIN_REPLACED_LENGTH ? this.known.get(s.value) : undefined;
        next = p !== undefined && DIGITS.test(p) ? p : text.slice(s.start, s.end);
      } else {
        const replaced = this.replaceKnown(s.value);
        next = replaced === s.value ? text.slice(s.start, s.end) : JSON.stringify(replaced);
      }
      out += text.slice(at, s.start) + next;
      at = s.end;
    }
    return out + text.slice(at);
  }

  /** Form or query pairs with scrubbed fields' values replaced; untouched pairs keep their bytes. */
  private pairs(text: string): string {
    return formPairs(text)
      .map((p) => {
        if (p.value === null || p.value === '') return p.raw;
        const eq = p.raw.indexOf('=');
        const field = this.fieldOf(p.key);
        const value = field !== null ? this.forField(field, p.value) : this.replaceKnown(p.value);
        return value === p.value ? p.raw : `${p.raw.slice(0, eq)}=${encodeURIComponent(value)}`;
      })
      .join('&');
  }

  private url(url: string): string {
    const q = url.indexOf('?');
    if (q < 0) return this.replaceKnown(url);
    const hash = url.indexOf('#', q);
    const end = hash < 0 ? url.length : hash;
    return `${this.replaceKnown(url.slice(0, q))}?${this.pairs(url.slice(q + 1, end))}${this.replaceKnown(url.slice(end))}`;
  }

  /**
   * The entry as it may be written: credential headers and scrubbed fields replaced by their
   * placeholders, then every value known so far (from this entry or an earlier one) replaced
   * wherever it appears in any of the entry's strings. Call it before anything of the entry is
   * written.
   */
  entry(raw: HarEntry): HarEntry {
    const e = structuredClone(raw);
    // Learn first, so a value shown in the answer is known when the request is rewritten, and the other way round.
    for (const h of [...e.request.headers, ...e.response.headers]) this.header(h.name, h.value);
    const q = e.request.url.indexOf('?');
    if (q >= 0) this.learnPairs(e.request.url.slice(q + 1).split('#')[0] as string);
    this.learnBody(e.request.postData?.text, e.request.postData?.mimeType ?? '');
    this.learnBody(e.response.content.text, e.response.content.mimeType);

    const headers = (list: HarEntry['request']['headers']) =>
      list.map((h) => ({ name: h.name, value: this.header(h.name, h.value) ?? this.replaceKnown(h.value) }));
    e.request.headers = headers(e.request.headers);
    e.response.headers = headers(e.response.headers);
    e.request.url = this.url(e.request.url);
    const query = e.request.url.indexOf('?');
    e.request.queryString =
      query < 0 ? [] : formPairs(e.request.url.slice(query + 1).split('#')[0] as string).map((p) => ({ name: p.key, value: p.value ?? '' }));
    if (e.request.postData) {
      const text = this.body(e.request.postData.text, e.request.postData.mimeType);
      if (typeof text === 'string') e.request.postData.text = text;
      else {
        delete e.request.postData;
        e._request_body = text.notKept;
      }
    }
    if (e.response.content.text !== undefined) {
      const text = this.body(e.response.content.text, e.response.content.mimeType);
      if (typeof text === 'string') e.response.content.text = text;
      else {
        delete e.response.content.text;
        e._response_body = text.notKept;
      }
    }
    e.response.redirectURL = this.url(e.response.redirectURL);
    e.response.statusText = this.replaceKnown(e.response.statusText);
    // What the steps above do not reach: an error's text, a comment. HAR's own fields (dates, versions, MIME types) are left alone.
    const loose = e as unknown as Record<string, unknown>;
    for (const key of Object.keys(loose)) if (key === 'comment' || key.startsWith('_')) loose[key] = this.strings(loose[key]);
    return e;
  }

  private strings(v: unknown): unknown {
    if (typeof v === 'string') return this.replaceKnown(v);
    if (Array.isArray(v)) return v.map((x) => this.strings(x));
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.strings(x)]));
    return v;
  }
}
