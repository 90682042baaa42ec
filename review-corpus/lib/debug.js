// CORPUS_DEBUG=1 prints what the clients do (for whoever is reading a run).
export const debugLog = process.env.CORPUS_DEBUG ? (line) => process.stderr.write(`${line}\n`) : () => undefined;

export function assert(condition, message) {
  if (!condition) throw new Error(message);
}
