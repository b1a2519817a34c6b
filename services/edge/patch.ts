// PUT bodies with nullable fields → gRPC update requests: proto3 optional fields cannot say
// "set to null", so nulls travel by name in `clearedFields` and the other fields as they are.
export function toPatchMessage<T extends Record<string, unknown>>(body: T): { fields: { [K in keyof T]?: Exclude<T[K], null> }; clearedFields: string[] } {
  const fields: Record<string, unknown> = {};
  const clearedFields: string[] = [];
  for (const [name, value] of Object.entries(body)) {
    if (value === null) clearedFields.push(name);
    else if (value !== undefined) fields[name] = value;
  }
  return { fields: fields as { [K in keyof T]?: Exclude<T[K], null> }, clearedFields };
}

/** gRPC answers leave absent optional fields undefined; the API answers null. */
export function nullsFor<T extends object, K extends keyof T>(message: T, keys: readonly K[]): Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> | null } {
  const out: Record<string, unknown> = { ...(message as Record<string, unknown>) };
  for (const key of keys) out[key as string] = message[key] ?? null;
  return out as Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> | null };
}

/** The other way: a nested object's nulls become absent fields of a proto message. */
export function withoutNulls<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) as { [K in keyof T]: Exclude<T[K], null> };
}
