import { UsageError } from "../errors.js";

/**
 * A numeric option must be a whole number from `min` up. `text`: what was written, where it is known (a variable of
 * the environment); yargs turns a flag's text into NaN, shown as what it is.
 */
export function checkInteger(option: string, value: number, min: number, text?: string): void {
	if (Number.isInteger(value) && value >= min) return;
	const got = text !== undefined ? JSON.stringify(text) : Number.isNaN(value) ? "something that is not a number" : value;
	throw new UsageError(`${option} must be an integer >= ${min}, got ${got}`);
}
