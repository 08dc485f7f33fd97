// What `values` in a thread search or count asks of a thread's state: upstream's containment
// (the JS server's in-memory search, the one the SDKs meet in development), read key by key.
// Each key of the filter must be present with a value that is not null; where both are
// objects (lists included) the filter's object is contained the same way, so a list is
// matched item by item at the same positions (`{"messages": [{"content": "hi"}]}` asks that
// the first message's content be "hi"); anything else is compared with ===. A state that is
// not there yet (a thread that has never run) contains every filter, as upstream's does.
// Unlike upstream, only own properties count: `{"__proto__": {}}` must not match every thread
// through the prototype.

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Whether the state `values` contains `wanted` as upstream's thread search reads it. */
export function stateContains(values: unknown, wanted: unknown): boolean {
  if (values === null || values === undefined || !isObject(wanted)) return true;
  for (const [key, want] of Object.entries(wanted)) {
    const have = isObject(values) && Object.hasOwn(values, key) ? values[key] : undefined;
    if (have === null || have === undefined) return false;
    if (isObject(want) && isObject(have) ? !stateContains(have, want) : have !== want) return false;
  }
  return true;
}
