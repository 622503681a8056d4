import { UsageError } from "../errors.js";

/** The largest integer a JavaScript number holds exactly (2^53 - 1): a count option's bound unless it has its own. */
const MAX_EXACT = Number.MAX_SAFE_INTEGER;

const describeMax = (max: number) => (max === MAX_EXACT ? `${max} (2^53 - 1, the largest integer held exactly)` : String(max));

/**
 * A numeric option's value, read from its text as written (`--row-group-rows 9007199254740993`, a variable of the
 * environment): a whole number from `min` to `max`. Decimal digits are compared as such, never through a double,
 * which past 2^53 rounds them to another number than the one written (and would pass a bound check as it). Other
 * number spellings (`1e6`, `0x40`) are read as JavaScript reads them. `option` names the flag or the variable.
 */
export function parseIntegerOption(option: string, text: string, min: number, max = MAX_EXACT): number {
	const written = text.trim();
	const digits = /^[+-]?\d+$/.test(written) ? BigInt(written) : undefined;
	const value = digits === undefined ? (written === "" ? Number.NaN : Number(written)) : undefined;
	if (value !== undefined && !Number.isInteger(value)) {
		const got = Number.isNaN(value) ? JSON.stringify(text) : written;
		throw new UsageError(`${option} must be an integer >= ${min}, got ${got}`);
	}
	const exact = digits ?? BigInt(value as number);
	if (exact < BigInt(min)) throw new UsageError(`${option} must be an integer >= ${min}, got ${written}`);
	if (exact > BigInt(max)) throw new UsageError(`${option} must be at most ${describeMax(max)}, got ${written}`);
	return Number(exact);
}
