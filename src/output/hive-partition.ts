/**
 * Hive partitions of a time column (`year=2021/month=1/day=5/hour=7`, without zero padding, as DuckDB and Spark
 * write them), computed from int64 timestamp values in integers: no Date, no double, exact for every int64.
 * A partition is the half-open range of values it holds, so that sorted rows are routed by two comparisons.
 */
import { daysFromMonthsBig } from "../convert/calendar.js";
import type { TargetUnit } from "../dtype/units.js";
import { floorDiv } from "../select/time-instants.js";

export const PARTITION_LEVELS = ["year", "month", "day", "hour"] as const;
export type PartitionLevel = (typeof PARTITION_LEVELS)[number];

const PER_SECOND: Readonly<Record<TargetUnit, bigint>> = { s: 1n, ms: 1_000n, us: 1_000_000n, ns: 1_000_000_000n };

/** One partition: its folder, relative to the dataset, and the values [low, high) it holds. */
export interface HivePartition {
	readonly path: string;
	readonly low: bigint;
	readonly high: bigint;
}

/** Year, month (1-12) and day of a day count since 1970-01-01 (Howard Hinnant's civil_from_days, in BigInt). */
export function civilFromDays(days: bigint): [bigint, number, number] {
	const z = days + 719_468n;
	const era = floorDiv(z, 146_097n);
	const dayOfEra = z - era * 146_097n;
	const yearOfEra = (dayOfEra - dayOfEra / 1_460n + dayOfEra / 36_524n - dayOfEra / 146_096n) / 365n;
	const dayOfYear = dayOfEra - (365n * yearOfEra + yearOfEra / 4n - yearOfEra / 100n);
	const shiftedMonth = (5n * dayOfYear + 2n) / 153n;
	const day = Number(dayOfYear - (153n * shiftedMonth + 2n) / 5n + 1n);
	const month = Number(shiftedMonth < 10n ? shiftedMonth + 3n : shiftedMonth - 9n);
	return [yearOfEra + era * 400n + (month <= 2 ? 1n : 0n), month, day];
}

function daysOfMonth(year: bigint, month: number): bigint {
	return daysFromMonthsBig((year - 1970n) * 12n + BigInt(month - 1));
}

/** The partition of `level` that holds the timestamp `value` (in `unit` since 1970-01-01T00:00:00). */
export function hivePartitionOf(value: bigint, unit: TargetUnit, level: PartitionLevel): HivePartition {
	const perDay = PER_SECOND[unit] * 86_400n;
	const days = floorDiv(value, perDay);
	const [year, month, day] = civilFromDays(days);
	switch (level) {
		case "year":
			return { path: `year=${year}`, low: daysOfMonth(year, 1) * perDay, high: daysOfMonth(year + 1n, 1) * perDay };
		case "month": {
			const next = month === 12 ? daysOfMonth(year + 1n, 1) : daysOfMonth(year, month + 1);
			return { path: `year=${year}/month=${month}`, low: daysOfMonth(year, month) * perDay, high: next * perDay };
		}
		case "day":
			return { path: `year=${year}/month=${month}/day=${day}`, low: days * perDay, high: (days + 1n) * perDay };
		case "hour": {
			const perHour = PER_SECOND[unit] * 3_600n;
			const hours = floorDiv(value, perHour);
			const hour = hours - days * 24n;
			return { path: `year=${year}/month=${month}/day=${day}/hour=${hour}`, low: hours * perHour, high: (hours + 1n) * perHour };
		}
	}
}
