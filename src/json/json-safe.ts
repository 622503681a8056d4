/**
 * A value as JSON can hold it, for what the library hands to a caller's logger or API (an error's fields, a
 * summary): an int64 (a bigint) becomes its decimal string, as inspect's JSON writes int64 values, where
 * `JSON.stringify` would throw. Arrays and plain objects are converted member by member; an object with its own
 * `toJSON` (a Date, an error of this package) is left to it.
 */
export function jsonSafe(value: unknown): unknown {
	if (typeof value === "bigint") return value.toString();
	if (Array.isArray(value)) return value.map(jsonSafe);
	if (value === null || typeof value !== "object" || typeof (value as { toJSON?: unknown }).toJSON === "function") return value;
	if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number | bigint>, jsonSafe);
	const prototype = Object.getPrototypeOf(value);
	if (prototype !== Object.prototype && prototype !== null) return value;
	return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, jsonSafe(member)]));
}
