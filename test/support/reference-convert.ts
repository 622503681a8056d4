/**
 * A plain BigInt reference of the conversion contract, written independently of src/convert: every instant in
 * attoseconds (calendar units through a day count built from leap-year rules), then a floor division.
 */
export const AS: Record<string, bigint> = {
	W: 604_800n * 10n ** 18n,
	D: 86_400n * 10n ** 18n,
	h: 3_600n * 10n ** 18n,
	m: 60n * 10n ** 18n,
	s: 10n ** 18n,
	ms: 10n ** 15n,
	us: 10n ** 12n,
	μs: 10n ** 12n,
	ns: 10n ** 9n,
	ps: 10n ** 6n,
	fs: 10n ** 3n,
	as: 1n,
};

export const NAT = -(2n ** 63n);

export function floorDiv(a: bigint, b: bigint): bigint {
	const q = a / b;
	return (a % b !== 0n) && ((a < 0n) !== (b < 0n)) ? q - 1n : q;
}

function leapDaysBefore(year: bigint): bigint {
	// Leap days in years [1, year) of the proleptic Gregorian calendar (works for any integer year).
	const y = year - 1n;
	return floorDiv(y, 4n) - floorDiv(y, 100n) + floorDiv(y, 400n);
}

function isLeap(year: bigint): boolean {
	return (year % 4n === 0n && year % 100n !== 0n) || year % 400n === 0n;
}

const MONTH_DAYS = [31n, 28n, 31n, 30n, 31n, 30n, 31n, 31n, 30n, 31n, 30n, 31n];

function daysSinceEpochOfYear(year: bigint): bigint {
	return 365n * (year - 1970n) + leapDaysBefore(year) - leapDaysBefore(1970n);
}

export function referenceDaysFromMonths(months: bigint): bigint {
	const year = 1970n + floorDiv(months, 12n);
	const month = Number(months - floorDiv(months, 12n) * 12n);
	let days = daysSinceEpochOfYear(year);
	for (let m = 0; m < month; m++) days += MONTH_DAYS[m] + (m === 1 && isLeap(year) ? 1n : 0n);
	return days;
}

export type ReferenceResult = { kind: "null" } | { kind: "overflow" } | { kind: "value"; value: bigint; exact: boolean } | { kind: "generic" };

/**
 * The reference's rounding to the nearest with ties to even, written from its definition: the two candidates
 * around the exact quotient, the nearer one, and of two equally near the even one.
 */
export function referenceNearest(a: bigint, b: bigint): bigint {
	const below = floorDiv(a, b);
	const above = below + 1n;
	const fromBelow = a - below * b;
	const toAbove = above * b - a;
	if (fromBelow !== toAbove) return fromBelow < toAbove ? below : above;
	return below % 2n === 0n ? below : above;
}

export function referenceConvert(count: bigint, unit: string, scale: number, target: "s" | "ms" | "us" | "ns", rounding: "floor" | "nearest" = "floor"): ReferenceResult {
	if (count === NAT) return { kind: "null" };
	if (unit === "generic") return { kind: "generic" };
	let instant: bigint;
	if (unit === "Y" || unit === "M") {
		const months = count * BigInt(scale) * (unit === "Y" ? 12n : 1n);
		instant = referenceDaysFromMonths(months) * AS.D;
	} else {
		instant = count * BigInt(scale) * AS[unit];
	}
	const floored = floorDiv(instant, AS[target]);
	const value = rounding === "nearest" ? referenceNearest(instant, AS[target]) : floored;
	if (value <= NAT || value > -NAT - 1n) return { kind: "overflow" };
	return { kind: "value", value, exact: floored * AS[target] === instant };
}

export function referenceAutoUnit(unit: string): "s" | "ms" | "us" | "ns" {
	if (unit === "ms") return "ms";
	if (unit === "us" || unit === "μs") return "us";
	if (unit === "ns" || unit === "ps" || unit === "fs" || unit === "as") return "ns";
	return "s";
}
