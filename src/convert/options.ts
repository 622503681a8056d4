import { UsageError } from "../errors.js";
import { TARGET_UNITS, type TargetUnit } from "../dtype/units.js";

export type TargetUnitOption = "auto" | TargetUnit;
export type OverflowPolicy = "error" | "null";
/**
 * What becomes of a value that is not a whole number of target units: refused (`error`), floored (`floor`, numpy's
 * cast rule, what `allowTruncate` asks for), or rounded to the nearest unit with ties to the even one (`nearest`,
 * pandas' `round`; xarray and cftime decode float CF counts to the nearest too).
 */
export type Rounding = "error" | "floor" | "nearest";

/** How int64 counts become Arrow timestamps; `normalizeConversionOptions` fills the defaults. */
export interface ConversionOptions {
	/** The Arrow unit: `auto` picks it from the source unit (see AUTO_TARGET_UNIT). */
	unit?: TargetUnitOption | undefined;
	/** Floor values that are not a whole number of target units instead of refusing them: `rounding: "floor"`. */
	allowTruncate?: boolean | undefined;
	/** Values that are not a whole number of target units: `error` (default), `floor` or `nearest` (ties to even). */
	rounding?: Rounding | undefined;
	/** `null` writes null for values outside int64 in the target unit instead of refusing them. */
	onOverflow?: OverflowPolicy | undefined;
}

export interface NormalizedConversionOptions {
	readonly unit: TargetUnitOption;
	readonly rounding: Rounding;
	readonly onOverflow: OverflowPolicy;
}

export const TARGET_UNIT_CHOICES: readonly TargetUnitOption[] = ["auto", ...TARGET_UNITS];
export const OVERFLOW_CHOICES: readonly OverflowPolicy[] = ["error", "null"];
const ROUNDING_CHOICES: readonly Rounding[] = ["error", "floor", "nearest"];

/**
 * The rounding asked for by `rounding` and `allowTruncate` (`allowTruncate: true` is `rounding: "floor"`): given
 * together they must say the same, so that no call means two things.
 */
export function resolveRounding(options: Pick<ConversionOptions, "allowTruncate" | "rounding">): Rounding {
	const { allowTruncate, rounding } = options;
	if (allowTruncate !== undefined && typeof allowTruncate !== "boolean") {
		throw new UsageError(`invalid allowTruncate ${JSON.stringify(allowTruncate)}: true or false`, { option: "allowTruncate", value: allowTruncate });
	}
	if (rounding === undefined) return allowTruncate === true ? "floor" : "error";
	if (!ROUNDING_CHOICES.includes(rounding)) {
		throw new UsageError(`invalid rounding ${JSON.stringify(rounding)}: choose one of ${ROUNDING_CHOICES.join(", ")}`, { option: "rounding", value: rounding });
	}
	if ((allowTruncate === true && rounding !== "floor") || (allowTruncate === false && rounding === "floor")) {
		throw new UsageError(
			`rounding ${JSON.stringify(rounding)} contradicts \`allowTruncate\` ${allowTruncate} (allowTruncate true is rounding "floor"): give one of them`,
			{ option: "rounding", value: rounding },
		);
	}
	return rounding;
}

export function normalizeConversionOptions(options: ConversionOptions = {}): NormalizedConversionOptions {
	const unit = options.unit ?? "auto";
	if (!TARGET_UNIT_CHOICES.includes(unit)) {
		throw new UsageError(`invalid unit ${JSON.stringify(unit)}: choose one of ${TARGET_UNIT_CHOICES.join(", ")}`, { option: "unit", value: unit });
	}
	const onOverflow = options.onOverflow ?? "error";
	if (!OVERFLOW_CHOICES.includes(onOverflow)) {
		throw new UsageError(`invalid onOverflow ${JSON.stringify(onOverflow)}: choose one of ${OVERFLOW_CHOICES.join(", ")}`, { option: "onOverflow", value: onOverflow });
	}
	return { unit, rounding: resolveRounding(options), onOverflow };
}
