import { Dt64ExportError } from "../errors.js";

/** Code points per `String.fromCodePoint` call: far below the engine's argument limit. */
const CODE_POINTS_PER_CALL = 4096;

/**
 * The strings of numpy's fixed-width unicode (`<U n`, v3 `fixed_length_utf32`): n UTF-32 code units per value,
 * shorter strings padded with NUL. numpy drops trailing NULs when it reads a value, and so does this (zarrita
 * drops every NUL, inner ones included). A code unit that is not a Unicode scalar value (a surrogate, or past
 * U+10FFFF) has no UTF-8 form and is refused rather than replaced.
 */
export function decodeFixedUtf32(units: Uint32Array, chars: number): string[] {
	const count = units.length / chars;
	const strings = new Array<string>(count);
	for (let i = 0; i < count; i++) {
		const start = i * chars;
		let end = start + chars;
		while (end > start && units[end - 1] === 0) end--;
		let text = "";
		for (let at = start; at < end; at += CODE_POINTS_PER_CALL) {
			const piece = units.subarray(at, Math.min(end, at + CODE_POINTS_PER_CALL));
			const bad = piece.findIndex((unit) => unit > 0x10ffff || (unit >= 0xd800 && unit <= 0xdfff));
			if (bad !== -1) {
				throw new Dt64ExportError("CHUNK_CORRUPT", `fixed_length_utf32: value ${i} holds 0x${piece[bad].toString(16)} at character ${at - start + bad}, not a Unicode scalar value`);
			}
			text += String.fromCodePoint(...piece);
		}
		strings[i] = text;
	}
	return strings;
}
