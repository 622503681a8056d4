/**
 * The numpy datetime64 units (zarr-extensions spec) and the four Arrow timestamp units, with their sizes.
 * Linear units are measured in attoseconds, the finest numpy unit, so that every ratio between two units is an
 * exact integer fraction. `Y` and `M` are calendar units and have no fixed size.
 */
export const DATETIME_UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "μs", "ns", "ps", "fs", "as", "generic"] as const;

export type DatetimeUnitSpelling = (typeof DATETIME_UNITS)[number];
/** A unit after normalization: `μs` is spelled `us`. */
export type DatetimeUnit = Exclude<DatetimeUnitSpelling, "μs">;
export type CalendarUnit = "Y" | "M";
export type LinearUnit = Exclude<DatetimeUnit, CalendarUnit | "generic">;

export const TARGET_UNITS = ["s", "ms", "us", "ns"] as const;
export type TargetUnit = (typeof TARGET_UNITS)[number];

const SECOND = 10n ** 18n;

/** Arrow timestamp units in a second. */
export const TARGET_UNITS_PER_SECOND: Readonly<Record<TargetUnit, bigint>> = { s: 1n, ms: 1_000n, us: 1_000_000n, ns: 1_000_000_000n };

export const ATTOSECONDS_PER_UNIT: Readonly<Record<LinearUnit, bigint>> = {
	W: 7n * 86_400n * SECOND,
	D: 86_400n * SECOND,
	h: 3_600n * SECOND,
	m: 60n * SECOND,
	s: SECOND,
	ms: 10n ** 15n,
	us: 10n ** 12n,
	ns: 10n ** 9n,
	ps: 10n ** 6n,
	fs: 10n ** 3n,
	as: 1n,
};

/** The Arrow unit chosen by `--unit auto`: the finest Arrow unit that is not finer than needed. */
export const AUTO_TARGET_UNIT: Readonly<Record<Exclude<DatetimeUnit, "generic">, TargetUnit>> = {
	Y: "s",
	M: "s",
	W: "s",
	D: "s",
	h: "s",
	m: "s",
	s: "s",
	ms: "ms",
	us: "us",
	ns: "ns",
	ps: "ns",
	fs: "ns",
	as: "ns",
};

export function isCalendarUnit(unit: DatetimeUnit): unit is CalendarUnit {
	return unit === "Y" || unit === "M";
}

export function normalizeUnit(unit: DatetimeUnitSpelling): DatetimeUnit {
	return unit === "μs" ? "us" : unit;
}
