/** Own-property lookup: an id such as `__proto__` or `constructor` never reaches the prototype. */
export function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
