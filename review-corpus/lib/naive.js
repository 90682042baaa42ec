// The payout helper many teams write first: on a 5xx or a lost answer, send the payout again under
// a fresh client_ref_id "so that it is not refused as a duplicate". Used by the clients that ship
// that bug (docs/review.md double-payout-after-timeout).

/** Pays an order; after a fault, again as `<id>-R<n>`. Tracks every attempt in the book. */
export async function naivePayOrder(api, book, o, { attempts = 3 } = {}) {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const ref = attempt === 1 ? o.client_ref_id : `${o.client_ref_id}-R${attempt}`;
    const entry = book.track(ref, { ...o, client_ref_id: ref });
    const r = await api.initialize({ ...o, client_ref_id: ref });
    if (r.kind === 'ok') {
      entry.refId = r.refId;
      return { made: true, clientRefId: ref, refId: r.refId };
    }
    if (r.kind === 'rejected' || r.kind === 'invalid' || r.kind === 'duplicate') return { made: false, message: r.message };
    // 5xx, dropped or timed out: "it failed", try again
  }
  return { made: false, message: 'gave up' };
}
