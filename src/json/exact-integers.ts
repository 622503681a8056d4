import { rawMembers } from "./raw-member.js";

/**
 * Integers written in JSON text past 2^53 - 1, exact. JSON text carries every digit of an integer; `JSON.parse`
 * rounds it to a double (9519333550154345791 becomes ...346000). zarr-python and xarray write and read such integers
 * exactly, in a fill value as in an attribute.
 */

/** A JSON text with a run of 16 digits may write an integer past 2^53 (9007199254740991 has 16 digits). */
const LONG_DIGITS = /\d{16}/;

/**
 * The CF attributes applied to the values of the data: those that mark values (compared with them exactly) and the
 * packing factors (applied exactly to integer data, or refused: cf/packing.ts). An integer written past 2^53 in one
 * of them is read as a bigint. Other attributes stay as `JSON.parse` reads them.
 */
const EXACT_ATTRIBUTES = ["_FillValue", "missing_value", "valid_min", "valid_max", "valid_range", "scale_factor", "add_offset"] as const;

/**
 * `attributes` (what `JSON.parse` read from `text`, the attributes object's exact JSON text) with each attribute
 * applied to values (EXACT_ATTRIBUTES) holding an integer written past 2^53 - 1 read again from its text, that
 * integer a bigint. The object itself when there is none.
 */
export function withExactIntegerAttributes(attributes: Record<string, unknown>, text: string): Record<string, unknown> {
	if (!LONG_DIGITS.test(text)) return attributes;
	let exact: Record<string, unknown> | undefined;
	let members: Map<string, string> | undefined;
	for (const name of EXACT_ATTRIBUTES) {
		if (attributes[name] === undefined) continue;
		members ??= rawMembers(text);
		const memberText = members.get(name);
		if (memberText === undefined || !LONG_DIGITS.test(memberText)) continue;
		const value = parseExactIntegers(memberText);
		if (!holdsBigint(value)) continue;
		exact ??= { ...attributes };
		exact[name] = value;
	}
	return exact ?? attributes;
}

const holdsBigint = (value: unknown): boolean => typeof value === "bigint" || (Array.isArray(value) && value.some(holdsBigint));

/**
 * The value of a valid JSON text (one `JSON.parse` has read), as `JSON.parse` reads it but for every integer
 * written past 2^53 - 1 (no fraction, no exponent), which is a bigint.
 */
export function parseExactIntegers(text: string): unknown {
	return new ExactReader(text).value();
}

const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
const SPACE = /[ \t\n\r]*/y;

class ExactReader {
	#at = 0;

	constructor(private readonly text: string) {}

	value(): unknown {
		this.#skipSpace();
		const char = this.text[this.#at];
		if (char === "{") return this.#object();
		if (char === "[") return this.#array();
		if (char === '"') return this.#string();
		for (const [word, value] of [["true", true], ["false", false], ["null", null]] as const) {
			if (this.text.startsWith(word, this.#at)) {
				this.#at += word.length;
				return value;
			}
		}
		NUMBER.lastIndex = this.#at;
		const match = NUMBER.exec(this.text);
		if (match === null) throw new SyntaxError(`no JSON value at offset ${this.#at}`);
		this.#at += match[0].length;
		const number = Number(match[0]);
		return match[1] === undefined && match[2] === undefined && !Number.isSafeInteger(number) ? BigInt(match[0]) : number;
	}

	#object(): Record<string, unknown> {
		const object: Record<string, unknown> = {};
		this.#at++;
		if (this.#next() === "}") {
			this.#at++;
			return object;
		}
		for (;;) {
			this.#skipSpace();
			const name = this.#string();
			this.#next();
			this.#at++; // ":"
			// A plain assignment would make a member named "__proto__" the prototype: JSON.parse makes it a member.
			Object.defineProperty(object, name, { value: this.value(), enumerable: true, writable: true, configurable: true });
			if (this.#next() === ",") {
				this.#at++;
				continue;
			}
			this.#at++; // "}"
			return object;
		}
	}

	#array(): unknown[] {
		const array: unknown[] = [];
		this.#at++;
		if (this.#next() === "]") {
			this.#at++;
			return array;
		}
		for (;;) {
			array.push(this.value());
			if (this.#next() === ",") {
				this.#at++;
				continue;
			}
			this.#at++; // "]"
			return array;
		}
	}

	#string(): string {
		const start = this.#at;
		this.#at++;
		for (;;) {
			const char = this.text[this.#at++];
			if (char === undefined) throw new SyntaxError("unterminated JSON string");
			if (char === "\\") this.#at++;
			else if (char === '"') return JSON.parse(this.text.slice(start, this.#at)) as string;
		}
	}

	/** The next character that is not white space. */
	#next(): string | undefined {
		this.#skipSpace();
		return this.text[this.#at];
	}

	#skipSpace(): void {
		SPACE.lastIndex = this.#at;
		SPACE.exec(this.text);
		this.#at = SPACE.lastIndex;
	}
}

/**
 * JSON text of a JSON value that may hold such bigints, each written as its digits (an attribute "as written":
 * `JSON.stringify` throws on a bigint). Members that are undefined are left out, as `JSON.stringify` leaves them.
 */
export function stringifyExactIntegers(value: unknown): string {
	if (typeof value === "bigint") return value.toString();
	if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : stringifyExactIntegers(item))).join(",")}]`;
	if (typeof value === "object" && value !== null) {
		const members = Object.entries(value).filter(([, member]) => member !== undefined);
		return `{${members.map(([name, member]) => `${JSON.stringify(name)}:${stringifyExactIntegers(member)}`).join(",")}}`;
	}
	return JSON.stringify(value) ?? "null";
}
