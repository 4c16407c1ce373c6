/**
 * `fn`, remembered per argument: for the few strings every request repeats (route
 * patterns) and what is decided from them. At most `max` are kept; past that the memory
 * starts afresh.
 */
export function remembered<T>(fn: (key: string) => T, max = 10_000): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined) {
      value = fn(key);
      if (known.size >= max) known.clear();
      known.set(key, value);
    }
    return value;
  };
}
