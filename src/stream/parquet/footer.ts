import { Dt64ExportError } from "../../errors.js";

/** The last `count` bytes of `chunks` taken as one (all of them when they hold fewer), copying only those. */
function lastBytes(chunks: readonly Buffer[], count: number): Buffer {
	const pieces: Buffer[] = [];
	let length = 0;
	for (let i = chunks.length - 1; i >= 0 && length < count; i--) {
		const chunk = chunks[i];
		const piece = chunk.length > count - length ? chunk.subarray(chunk.length - (count - length)) : chunk;
		pieces.unshift(piece);
		length += piece.length;
	}
	return Buffer.concat(pieces, length);
}

/**
 * The footer of the file `chunks` end with (its last 8 + footer length bytes, or all of them when they hold fewer),
 * for footerRowCount: copying the whole tail would copy the last row group too (4 MB for 2^20 timestamps).
 */
export function footerOfChunks(chunks: readonly Buffer[]): Buffer {
	const trailer = lastBytes(chunks, 8);
	const footerLength = trailer.length === 8 ? trailer.readUInt32LE(0) : 0;
	return lastBytes(chunks, footerLength + 8);
}

/**
 * Reads `num_rows` from a Parquet footer (Thrift compact protocol FileMetaData: 1 version, 2 schema, 3 num_rows).
 * Only what is needed to skip fields 1-2 is implemented; values are read as JS numbers, exact for any count
 * below 2^53 and only skipped otherwise.
 */
export function footerRowCount(file: Buffer, read: "written" | "found" = "written"): number {
	// Our writer's output checked as it ends is parquet-wasm's fault; a file found in a folder may have been cut short.
	const invalid = (what: string) =>
		read === "written" ? new Dt64ExportError("INTERNAL", `parquet-wasm produced an invalid Parquet file (${what})`) : new Dt64ExportError("DATASET_INVALID", `not a whole Parquet file (${what}: cut short, or not written by a part?)`);
	if (file.length < 12 || file.toString("latin1", file.length - 4) !== "PAR1") throw invalid("no footer");
	const footerLength = file.readUInt32LE(file.length - 8);
	if (footerLength + 8 > file.length) throw invalid("truncated footer");
	const bytes = file.subarray(file.length - 8 - footerLength, file.length - 8);
	let position = 0;
	const byte = (): number => {
		if (position >= bytes.length) throw invalid("footer ends early");
		return bytes[position++];
	};
	const varint = (): number => {
		let value = 0;
		for (let scale = 1; ; scale *= 128) {
			const b = byte();
			value += (b & 0x7f) * scale;
			if (b < 0x80) return value;
		}
	};
	const zigzag = (): number => {
		const n = varint();
		return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
	};
	const skip = (type: number): void => {
		switch (type) {
			case 1: // true
			case 2: // false
				return;
			case 3: // i8
				position += 1;
				return;
			case 4: // i16
			case 5: // i32
			case 6: // i64
				varint();
				return;
			case 7: // double
				position += 8;
				return;
			case 8: {
				// binary; the length is read before `position` is (`position += varint()` would add to the old value)
				const length = varint();
				position += length;
				return;
			}
			case 9: // list
			case 10: {
				// set
				const header = byte();
				const size = header >> 4 === 15 ? varint() : header >> 4;
				const elementType = header & 0x0f;
				for (let i = 0; i < size; i++) {
					if (elementType === 1 || elementType === 2) position += 1;
					else skip(elementType);
				}
				return;
			}
			case 11: {
				// map
				const size = varint();
				if (size === 0) return;
				const kinds = byte();
				for (let i = 0; i < size; i++) {
					skip(kinds >> 4);
					skip(kinds & 0x0f);
				}
				return;
			}
			case 12: // struct
				for (let field = fieldHeader(0); field.type !== 0; field = fieldHeader(field.id)) skip(field.type);
				return;
			default:
				throw invalid(`unknown Thrift type ${type}`);
		}
	};
	const fieldHeader = (previousId: number): { id: number; type: number } => {
		const header = byte();
		const type = header & 0x0f;
		if (type === 0) return { id: 0, type };
		return { id: header >> 4 === 0 ? zigzag() : previousId + (header >> 4), type };
	};
	for (let field = fieldHeader(0); field.type !== 0; field = fieldHeader(field.id)) {
		if (field.id === 3 && field.type === 6) return zigzag();
		skip(field.type);
	}
	throw invalid("footer has no row count");
}
