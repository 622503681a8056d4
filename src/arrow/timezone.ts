import { UsageError } from "../errors.js";

/**
 * An Arrow timestamp timezone as readers look it up: an offset `+HH:MM`/`-HH:MM`, or the zone's canonical IANA
 * name. Intl accepts `europe/paris` or `utc`, but polars and Arrow C++ search the time zone database by exact name
 * and refuse them. Null or undefined is no timezone (naive, like numpy).
 */
export function canonicalTimezone(timezone: string | null | undefined): string | null {
	if (timezone === undefined || timezone === null) return null;
	const offset = /^[+-](\d{2}):(\d{2})$/.exec(timezone);
	if (offset) {
		if (Number(offset[1]) > 23 || Number(offset[2]) > 59) {
			throw new UsageError(`timezone ${JSON.stringify(timezone)}: an offset is +HH:MM or -HH:MM with HH at most 23 and MM at most 59`, { option: "timezone", value: timezone });
		}
		return timezone;
	}
	try {
		return new Intl.DateTimeFormat("en", { timeZone: timezone }).resolvedOptions().timeZone;
	} catch {
		throw new UsageError(`timezone ${JSON.stringify(timezone)}: unknown time zone (use an IANA name such as UTC or Europe/Paris, or an offset like +01:00)`, { option: "timezone", value: timezone });
	}
}
