// The dashboard's only ways to the sandbox: the control API (/__sandbox) with the admin token,
// and its change stream.
import { useEffect, useRef, useState } from '/__sandbox/ui/vendor/preact-htm.js';

const C = '/__sandbox';

export class HttpError extends Error {
  constructor(status, body) {
    super(body?.error ?? body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

const authorization = (token) => (token ? { Authorization: `Bearer ${token}` } : {});

/**
 * A control-API client. `prefetch(path)` starts a GET before the view that needs it is on screen
 * (the page's first requests go out together, not one after another); that view's `get(path)`
 * then takes its answer instead of asking again, and `ready(path)` gives it at once if it is in.
 */
export function api(token) {
  const early = new Map();
  const call = async (method, path, body) => {
    const headers = { ...authorization(token), ...(body ? { 'content-type': 'application/json' } : {}) };
    const res = await fetch(`${C}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
    const json = await res.json().catch(() => null);
    if (!res.ok) throw new HttpError(res.status, json);
    return json;
  };
  return {
    get(path) {
      const taken = early.get(path);
      early.delete(path);
      return taken ? taken.answer : call('GET', path);
    },
    ready: (path) => early.get(path)?.data,
    prefetch(path) {
      if (early.has(path)) return;
      const entry = { answer: call('GET', path), data: undefined };
      // A failure is reported by the view that asks for it, if one ever does.
      entry.answer.then(
        (data) => {
          entry.data = data;
        },
        () => {},
      );
      early.set(path, entry);
    },
    /** After a change an answer fetched before it may be out of date. */
    discardPrefetched: () => early.clear(),
    post: (path, body = {}) => call('POST', path, body),
    put: (path, body = {}) => call('PUT', path, body),
    delete: (path) => call('DELETE', path),
  };
}

/**
 * What `load()` answers, asked again whenever `deps` change: `{ data, error }`. The last answer
 * stays on screen while the next one loads (a change refreshes without flashing "Loading…"), and
 * an answer that arrives after newer deps is dropped.
 */
export function useData(load, deps, initial) {
  const [state, setState] = useState(() => ({ data: initial, error: null }));
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setState({ data, error: null }),
      (error) => current && setState((s) => ({ data: s.data, error })),
    );
    return () => {
      current = false;
    };
  }, deps);
  return state;
}

/** `useData` of one GET, on screen at once when a prefetch of it has already been answered. */
export function useGet(client, path, deps = []) {
  return useData(() => client.get(path), [path, ...deps], client.ready(path));
}

/** The change stream, read with fetch (EventSource cannot send the admin token); calls `onChange` per event. */
export function useChanges(token, enabled, onChange) {
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    if (!enabled) return undefined;
    let stopped = false;
    const controller = new AbortController();
    (async () => {
      while (!stopped) {
        try {
          const res = await fetch(`${C}/events`, { headers: authorization(token), signal: controller.signal });
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value;
            let cut;
            while ((cut = buffer.indexOf('\n\n')) >= 0) {
              const chunk = buffer.slice(0, cut);
              buffer = buffer.slice(cut + 2);
              if (chunk.includes('event: change')) latest.current(JSON.parse(chunk.split('data: ')[1] ?? '{}'));
            }
          }
        } catch {
          // reconnect below
        }
        if (!stopped) await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    return () => {
      stopped = true;
      controller.abort();
    };
  }, [token, enabled]);
}
