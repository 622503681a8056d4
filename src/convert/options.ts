import { UsageError } from "../errors.js";
import { TARGET_UNITS, type TargetUnit } from "../dtype/units.js";

export type TargetUnitOption = "auto" | TargetUnit;
export type OverflowPolicy = "error" | "null";

/** How int64 counts become Arrow timestamps; `normalizeConversionOptions` fills the defaults. */
export interface ConversionOptions {
	/** The Arrow unit: `auto` picks it from the source unit (see AUTO_TARGET_UNIT). */
	unit?: TargetUnitOption;
	/** Floor values that are not a whole number of target units instead of refusing them. */
	allowTruncate?: boolean;
	/** `null` writes null for values outside int64 in the target unit instead of refusing them. */
	onOverflow?: OverflowPolicy;
}

export type NormalizedConversionOptions = Required<ConversionOptions>;

export const TARGET_UNIT_CHOICES: readonly TargetUnitOption[] = ["auto", ...TARGET_UNITS];
export const OVERFLOW_CHOICES: readonly OverflowPolicy[] = ["error", "null"];

export function normalizeConversionOptions(options: ConversionOptions = {}): NormalizedConversionOptions {
	const unit = options.unit ?? "auto";
	if (!TARGET_UNIT_CHOICES.includes(unit)) {
		throw new UsageError(`invalid unit ${JSON.stringify(unit)}: choose one of ${TARGET_UNIT_CHOICES.join(", ")}`, { option: "unit", value: unit });
	}
	const onOverflow = options.onOverflow ?? "error";
	if (!OVERFLOW_CHOICES.includes(onOverflow)) {
		throw new UsageError(`invalid onOverflow ${JSON.stringify(onOverflow)}: choose one of ${OVERFLOW_CHOICES.join(", ")}`, { option: "onOverflow", value: onOverflow });
	}
	return { unit, allowTruncate: options.allowTruncate ?? false, onOverflow };
}
