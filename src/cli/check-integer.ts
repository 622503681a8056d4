import { UsageError } from "../errors.js";

/** A numeric option must be a whole number from `min` up (yargs turns text into NaN, shown here as what it is). */
export function checkInteger(option: string, value: number, min: number): void {
	if (Number.isInteger(value) && value >= min) return;
	throw new UsageError(`${option} must be an integer >= ${min}, got ${Number.isNaN(value) ? "something that is not a number" : value}`);
}
