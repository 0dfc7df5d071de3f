/** A table lookup that ignores inherited properties (`constructor`, `toString`, …). */
export function own<Value>(table: Readonly<Record<string, Value>>, key: string): Value | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
