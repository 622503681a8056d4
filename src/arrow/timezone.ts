import { UsageError } from "../errors.js";

/**
 * The zones ICU still names by the IANA name they had before a rename: ICU (CLDR) keeps its canonical IDs stable, so
 * Intl resolves `Asia/Kolkata` to `Asia/Calcutta` and `Europe/Kyiv` to `Europe/Kiev`. Each is the same zone as its
 * current IANA name (CLDR's `iana` attribute in bcp47/timezone.xml; tzdata's `backward` links the old name to it),
 * which a time zone database without `backward` still holds. Not the zones IANA merged (Europe/Oslo stays
 * Europe/Oslo): ICU keeps those apart, and so does this table.
 */
const IANA_NAME_OF_ICU_ID: ReadonlyMap<string, string> = new Map([
	["Africa/Asmera", "Africa/Asmara"],
	["America/Buenos_Aires", "America/Argentina/Buenos_Aires"],
	["America/Catamarca", "America/Argentina/Catamarca"],
	["America/Coral_Harbour", "America/Atikokan"],
	["America/Cordoba", "America/Argentina/Cordoba"],
	["America/Godthab", "America/Nuuk"],
	["America/Indianapolis", "America/Indiana/Indianapolis"],
	["America/Jujuy", "America/Argentina/Jujuy"],
	["America/Louisville", "America/Kentucky/Louisville"],
	["America/Mendoza", "America/Argentina/Mendoza"],
	["Asia/Calcutta", "Asia/Kolkata"],
	["Asia/Katmandu", "Asia/Kathmandu"],
	["Asia/Rangoon", "Asia/Yangon"],
	["Asia/Saigon", "Asia/Ho_Chi_Minh"],
	["Atlantic/Faeroe", "Atlantic/Faroe"],
	["Europe/Kiev", "Europe/Kyiv"],
	["Pacific/Enderbury", "Pacific/Kanton"],
	["Pacific/Ponape", "Pacific/Pohnpei"],
	["Pacific/Truk", "Pacific/Chuuk"],
]);

/**
 * An Arrow timestamp timezone as readers look it up: an offset `+HH:MM`/`-HH:MM`, or the zone's canonical IANA
 * name. Intl accepts `europe/paris` or `utc`, but polars and Arrow C++ search the time zone database by exact name
 * and refuse them; Intl's own canonical ID is IANA's but for the renamed zones above (`Asia/Kolkata`, never
 * `Asia/Calcutta`). Null or undefined is no timezone (naive, like numpy).
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
	let resolved: string;
	try {
		resolved = new Intl.DateTimeFormat("en", { timeZone: timezone }).resolvedOptions().timeZone;
	} catch {
		throw new UsageError(`timezone ${JSON.stringify(timezone)}: unknown time zone (use an IANA name such as UTC or Europe/Paris, or an offset like +01:00)`, { option: "timezone", value: timezone });
	}
	return IANA_NAME_OF_ICU_ID.get(resolved) ?? resolved;
}
