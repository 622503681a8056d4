import { Dt64ExportError } from "../errors.js";

const INTEGER_LITERAL = /^-?(?:0|[1-9]\d*)$/;

/** The element texts of a JSON array's text when every element is an integer literal; undefined otherwise. */
function integerLiterals(text: string): string[] | undefined {
	const body = text.trim();
	if (!body.startsWith("[") || !body.endsWith("]")) return undefined;
	const inside = body.slice(1, -1).trim();
	if (inside === "") return [];
	const elements = inside.split(",").map((element) => element.trim());
	return elements.every((element) => INTEGER_LITERAL.test(element)) ? elements : undefined;
}

/**
 * A shape or chunk shape: a list of integers from `min`. `text` is the member's exact JSON text, where known: a
 * length past 2^53, which JSON.parse rounds (4611686018427387904 became ...388000), is then shown as written and
 * refused for its size (TOO_LARGE: no length past 2^53 - 1 can be counted exactly), not as no integer. `field`
 * names the member in messages (`shape`, `chunk_grid.configuration.chunk_shape`), after `prefix`.
 */
export function parseDimensionList(value: unknown, text: string | undefined, field: string, min: 0 | 1, prefix = ""): number[] {
	if (Array.isArray(value) && value.every((n) => Number.isSafeInteger(n) && n >= min)) return value as number[];
	const literals = text === undefined ? undefined : integerLiterals(text);
	if (literals?.every((literal) => BigInt(literal) >= BigInt(min))) {
		const largest = literals.find((literal) => BigInt(literal) > BigInt(Number.MAX_SAFE_INTEGER));
		throw new Dt64ExportError("TOO_LARGE", `${prefix}${field} [${literals.join(", ")}] is too large: ${largest} is past 2^53 - 1 (${Number.MAX_SAFE_INTEGER}), the largest length counted exactly`);
	}
	const shown = text === undefined ? JSON.stringify(value) : text.trim().replace(/\s+/g, " ");
	throw new Dt64ExportError("METADATA_INVALID", `${prefix}${field} must be a list of ${min === 0 ? "non-negative" : "positive"} integers, got ${shown}`, { field });
}
