/**
 * `fn`, remembered per argument: for the few strings every request repeats (route
 * patterns, policy names). At most `max` are kept; past that the memory starts afresh.
 */
export function remembered(fn: (key: string) => string, max = 10_000): (key: string) => string {
  const known = new Map<string, string>();
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
