/**
 * A zip's central directory read into a compact ZipIndex: the end record (and the zip64 end record and its locator
 * for a zip of more than 65,534 entries or 4 GiB), then the directory's records one after the other, each checked as
 * a zip reader must (its signature, its extra fields within the record, the zip64 sizes and offset where the record
 * says 0xffffffff, a stored entry's two sizes equal) and kept as a row of numbers and its name. The directory is read
 * in pieces of DIRECTORY_PIECE_BYTES, so that reading it holds at most a piece and the index, not the whole directory
 * and an object per entry besides. The bounds of zip-directory-bound.ts (entries, directory bytes) hold before a
 * record is read. A broken directory throws a plain Error saying what is wrong (openZip makes it STORE_INVALID).
 */
import { Dt64ExportError } from "../errors.js";
import { MAX_ZIP_DIRECTORY_BYTES, MAX_ZIP_ENTRIES, tooManyEntries } from "./zip-directory-bound.js";
import { PastEndOfZip } from "./zip-file-bytes.js";
import { ZipIndex } from "./zip-index.js";
import type { ZipBytes, ZipEntryLayout } from "./zip-store.js";

const END_RECORD_SIGNATURE = 0x06054b50;
const END_RECORD_BYTES = 22;
const MAX_COMMENT_BYTES = 0xffff;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_LOCATOR_BYTES = 20;
const ZIP64_END_RECORD_SIGNATURE = 0x06064b50;
const ZIP64_END_RECORD_BYTES = 56;
const RECORD_SIGNATURE = 0x02014b50;
const RECORD_BYTES = 46;
const ZIP64_EXTRA_FIELD = 0x0001;
const LOCAL_HEADER_BYTES = 30;
/** The directory is read this much at a time (a record is at most 46 + 3 × 65,535 bytes: a piece holds one whole). */
export const DIRECTORY_PIECE_BYTES = 4 * 2 ** 20;
const FLAG_ENCRYPTED = 0x1;
const FLAG_STRONG_ENCRYPTION = 0x40;

/** Where the central directory lies and how many records it states. */
interface DirectoryPlace {
	readonly offset: number;
	readonly bytes: number;
	readonly count: number;
}

function view(bytes: Uint8Array): DataView {
	return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A 64-bit field as a number, refused past 2^53 (no zip that size can be read by ranges of a JavaScript number). */
function uint64(data: DataView, at: number, what: string): number {
	const value = data.getBigUint64(at, true);
	if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`its ${what} (${value}) is past 2^53`);
	return Number(value);
}

/** The end record, searched backwards from the end of the file over the longest comment it may have. */
async function directoryPlace(bytes: ZipBytes, length: number, shownAs: string, signal: AbortSignal | undefined): Promise<DirectoryPlace> {
	const tailBytes = Math.min(END_RECORD_BYTES + MAX_COMMENT_BYTES, length);
	const tailStart = length - tailBytes;
	const tail = await bytes.read(tailStart, tailBytes, signal);
	const data = view(tail);
	for (let at = tailBytes - END_RECORD_BYTES; at >= 0; at--) {
		if (data.getUint32(at, true) !== END_RECORD_SIGNATURE) continue;
		const disk = data.getUint16(at + 4, true);
		if (disk !== 0) throw new Error(`multi-volume zip files are not supported (this is volume ${disk})`);
		const comment = data.getUint16(at + 20, true);
		if (comment !== tailBytes - at - END_RECORD_BYTES) throw new Error(`its end record's comment is ${comment} bytes, ${tailBytes - at - END_RECORD_BYTES} follow it`);
		const count = data.getUint16(at + 10, true);
		const size = data.getUint32(at + 12, true);
		const offset = data.getUint32(at + 16, true);
		if (count !== 0xffff && offset !== 0xffffffff && size !== 0xffffffff) return { offset, bytes: size, count };
		return zip64Place(bytes, tailStart + at, shownAs, signal);
	}
	throw new Error("no end of central directory record: maybe not a zip file");
}

/** The zip64 end record, found through its locator just before the end record at `endRecord`. */
async function zip64Place(bytes: ZipBytes, endRecord: number, shownAs: string, signal: AbortSignal | undefined): Promise<DirectoryPlace> {
	if (endRecord < ZIP64_LOCATOR_BYTES) throw new Error("no zip64 end of central directory locator before its end record");
	const locator = view(await bytes.read(endRecord - ZIP64_LOCATOR_BYTES, ZIP64_LOCATOR_BYTES, signal));
	if (locator.getUint32(0, true) !== ZIP64_LOCATOR_SIGNATURE) throw new Error("no zip64 end of central directory locator before its end record");
	const at = uint64(locator, 8, "zip64 end record's offset");
	const record = view(await bytes.read(at, ZIP64_END_RECORD_BYTES, signal));
	if (record.getUint32(0, true) !== ZIP64_END_RECORD_SIGNATURE) throw new Error(`no zip64 end of central directory record at offset ${at}`);
	const stated = record.getBigUint64(32, true);
	if (stated > BigInt(MAX_ZIP_ENTRIES)) throw tooManyEntries(shownAs, stated);
	return { count: Number(stated), bytes: uint64(record, 40, "central directory's size"), offset: uint64(record, 48, "central directory's offset") };
}

/** The fields of one record that a zip store keeps, the name's bytes by their place in the piece. */
interface DirectoryRecord {
	readonly nameStart: number;
	readonly nameBytes: number;
	readonly recordBytes: number;
	readonly entry: Omit<ZipEntryLayout, "name" | "nextHeader">;
}

/** The record at `at` of `piece`, or undefined when the piece ends within it. */
function recordAt(piece: Uint8Array, data: DataView, at: number, index: number): DirectoryRecord | undefined {
	if (at + RECORD_BYTES > piece.length) return undefined;
	const signature = data.getUint32(at, true);
	if (signature !== RECORD_SIGNATURE) throw new Error(`record ${index} of its central directory has signature 0x${signature.toString(16)}, not 0x${RECORD_SIGNATURE.toString(16)}`);
	const flags = data.getUint16(at + 8, true);
	const nameBytes = data.getUint16(at + 28, true);
	const extraBytes = data.getUint16(at + 30, true);
	const commentBytes = data.getUint16(at + 32, true);
	const recordBytes = RECORD_BYTES + nameBytes + extraBytes + commentBytes;
	if (at + recordBytes > piece.length) return undefined;
	const nameStart = at + RECORD_BYTES;
	if (flags & FLAG_STRONG_ENCRYPTION) throw new Error(`entry ${decodeName(piece, nameStart, nameBytes)}: strong encryption is not supported`);
	let size = data.getUint32(at + 24, true);
	let compressedSize = data.getUint32(at + 20, true);
	let localHeader = data.getUint32(at + 42, true);
	// The zip64 extra field holds, in this order, those of the three that the record sets to 0xffffffff.
	let extra = nameStart + nameBytes;
	const extraEnd = extra + extraBytes;
	let zip64: number | undefined;
	while (extra + 4 <= extraEnd) {
		const id = data.getUint16(extra, true);
		const fieldBytes = data.getUint16(extra + 2, true);
		if (extra + 4 + fieldBytes > extraEnd) throw new Error(`entry ${decodeName(piece, nameStart, nameBytes)}: an extra field runs past its record`);
		if (id === ZIP64_EXTRA_FIELD && zip64 === undefined) zip64 = extra;
		extra += 4 + fieldBytes;
	}
	if (size === 0xffffffff || compressedSize === 0xffffffff || localHeader === 0xffffffff) {
		const name = () => decodeName(piece, nameStart, nameBytes);
		if (zip64 === undefined) throw new Error(`entry ${name()}: no zip64 extra field for the sizes or offset it defers to one`);
		const end = zip64 + 4 + data.getUint16(zip64 + 2, true);
		let field = zip64 + 4;
		const next = (what: string): number => {
			if (field + 8 > end) throw new Error(`entry ${name()}: its zip64 extra field lacks the ${what}`);
			const value = uint64(data, field, `${what} of entry ${name()}`);
			field += 8;
			return value;
		};
		if (size === 0xffffffff) size = next("uncompressed size");
		if (compressedSize === 0xffffffff) compressedSize = next("compressed size");
		if (localHeader === 0xffffffff) localHeader = next("local header offset");
	}
	const method = data.getUint16(at + 10, true);
	const encrypted = (flags & FLAG_ENCRYPTED) !== 0;
	// A stored entry's bytes are its data (and a traditional encryption header of 12 bytes).
	if (method === 0 && compressedSize !== size + (encrypted ? 12 : 0)) {
		throw new Error(`entry ${decodeName(piece, nameStart, nameBytes)}: stored, but its compressed size ${compressedSize} is not its size ${size}`);
	}
	return { nameStart, nameBytes, recordBytes, entry: { localHeader, headerGuess: LOCAL_HEADER_BYTES + nameBytes + extraBytes, compressedSize, size, method, encrypted, crc32: data.getUint32(at + 16, true) } };
}

const names = new TextDecoder();

/** A name as UTF-8 (an invalid sequence as U+FFFD), as zip tools write names today and unzipit read them. */
function decodeName(piece: Uint8Array, start: number, length: number): string {
	let ascii = true;
	for (let i = start; i < start + length; i++) {
		if (piece[i] >= 0x80) {
			ascii = false;
			break;
		}
	}
	if (!ascii || length > 1024) return names.decode(piece.subarray(start, start + length));
	return String.fromCharCode.apply(null, piece.subarray(start, start + length) as unknown as number[]);
}

/**
 * The central directory of the zip `bytes` (of `length` bytes), read in pieces.
 */
export async function readCentralDirectory(
	bytes: ZipBytes,
	length: number,
	shownAs: string,
	signal: AbortSignal | undefined,
): Promise<ZipIndex> {
	const place = await directoryPlace(bytes, length, shownAs, signal);
	if (place.bytes > MAX_ZIP_DIRECTORY_BYTES && place.offset + place.bytes <= length) {
		throw new Dt64ExportError(
			"TOO_LARGE",
			`${shownAs}: its central directory is ${place.bytes} bytes, more than the ${MAX_ZIP_DIRECTORY_BYTES / 2 ** 20} MiB a zip store's may take (a limit of this tool); unzip it and export the folder`,
			{ path: shownAs, value: MAX_ZIP_DIRECTORY_BYTES },
		);
	}
	// The whole directory within the file, said of it whole (its pieces are read one by one).
	if (place.offset + place.bytes > length) throw new PastEndOfZip(place.offset, place.bytes, length);
	// Fewer records than stated fit in the directory's bytes: a count larger than that is a lie, not room to make.
	const index = new ZipIndex(Math.min(place.count, Math.floor(place.bytes / RECORD_BYTES)));
	let read = 0;
	let carried: Uint8Array = new Uint8Array(0);
	let records = 0;
	while (records < place.count) {
		if (read === place.bytes) throw new Error(`its central directory ends after ${records} of the ${place.count} records it states`);
		const count = Math.min(DIRECTORY_PIECE_BYTES, place.bytes - read);
		const fresh = await bytes.read(place.offset + read, count, signal);
		read += count;
		let piece = fresh;
		if (carried.length > 0) {
			piece = new Uint8Array(carried.length + fresh.length);
			piece.set(carried);
			piece.set(fresh, carried.length);
		}
		const data = view(piece);
		let at = 0;
		while (records < place.count) {
			const record = recordAt(piece, data, at, records);
			if (record === undefined) break;
			index.add(decodeName(piece, record.nameStart, record.nameBytes), record.entry);
			at += record.recordBytes;
			records++;
		}
		carried = piece.slice(at);
	}
	index.complete();
	return index;
}
