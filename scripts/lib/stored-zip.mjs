/**
 * A minimal zip writer for test and bench stores, in plain JavaScript (as zarr-writer.mjs) so that the tests
 * (through test/support/zip.ts) and the bench scripts share it: STORED (uncompressed) entries, or DEFLATED ones with
 * `deflate`, so that zips are made on a machine with only Node.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";

/**
 * Every file below `folder`, as zip entry names (`/`-separated), sorted.
 * @param {string} folder
 * @param {string} [prefix]
 * @returns {string[]}
 */
function filesBelow(folder, prefix = "") {
	const names = [];
	for (const entry of fs.readdirSync(path.join(folder, prefix), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
		const name = prefix ? `${prefix}/${entry.name}` : entry.name;
		if (entry.isDirectory()) names.push(...filesBelow(folder, name));
		else if (entry.isFile()) names.push(name);
	}
	return names;
}

/**
 * Writes the files of `folder` into `zipFile` as STORED entries (DEFLATED with `deflate`), named relative to the
 * folder (the store at the top, as zarr-python's ZipStore writes it), or under `prefix/` when given. With
 * `timestamps`, each entry carries Info-ZIP's extended timestamp extra field as `zip` writes it: modification and
 * access times in the local header, the modification time alone in the central directory (4 bytes shorter).
 * @param {string} folder
 * @param {string} zipFile
 * @param {{ prefix?: string, deflate?: boolean, timestamps?: boolean }} [options]
 */
export function writeStoredZip(folder, zipFile, options = {}) {
	const locals = [];
	const centrals = [];
	let offset = 0;
	for (const relative of filesBelow(folder)) {
		const name = Buffer.from(options.prefix ? `${options.prefix}/${relative}` : relative, "utf8");
		const raw = fs.readFileSync(path.join(folder, relative));
		const crc = zlib.crc32(raw);
		const data = options.deflate ? zlib.deflateRawSync(raw) : raw;
		const method = options.deflate ? 8 : 0;
		const [localExtra, centralExtra] = options.timestamps ? [timestampField(2), timestampField(1)] : [Buffer.alloc(0), Buffer.alloc(0)];
		const local = Buffer.alloc(30);
		local.writeUInt32LE(0x04034b50, 0);
		local.writeUInt16LE(20, 4); // version needed
		local.writeUInt16LE(0x0800, 6); // UTF-8 names
		local.writeUInt16LE(method, 8);
		local.writeUInt32LE(crc, 14);
		local.writeUInt32LE(data.length, 18);
		local.writeUInt32LE(raw.length, 22);
		local.writeUInt16LE(name.length, 26);
		local.writeUInt16LE(localExtra.length, 28);
		const central = Buffer.alloc(46);
		central.writeUInt32LE(0x02014b50, 0);
		central.writeUInt16LE(20, 4); // version made by
		central.writeUInt16LE(20, 6);
		central.writeUInt16LE(0x0800, 8);
		central.writeUInt16LE(method, 10);
		central.writeUInt32LE(crc, 16);
		central.writeUInt32LE(data.length, 20);
		central.writeUInt32LE(raw.length, 24);
		central.writeUInt16LE(name.length, 28);
		central.writeUInt16LE(centralExtra.length, 30);
		central.writeUInt32LE(offset, 42);
		locals.push(local, name, localExtra, data);
		centrals.push(Buffer.concat([central, name, centralExtra]));
		offset += local.length + name.length + localExtra.length + data.length;
	}
	const directory = Buffer.concat(centrals);
	const end = Buffer.alloc(22);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(centrals.length, 8);
	end.writeUInt16LE(centrals.length, 10);
	end.writeUInt32LE(directory.length, 12);
	end.writeUInt32LE(offset, 16);
	fs.writeFileSync(zipFile, Buffer.concat([...locals, directory, end]));
}

/**
 * Info-ZIP's extended timestamp extra field (0x5455, "UT") holding `times` times (modification, then access).
 * @param {number} times
 * @returns {Buffer}
 */
function timestampField(times) {
	const field = Buffer.alloc(5 + 4 * times);
	field.writeUInt16LE(0x5455, 0);
	field.writeUInt16LE(1 + 4 * times, 2);
	field.writeUInt8(times === 2 ? 3 : 1, 4);
	for (let k = 0; k < times; k++) field.writeUInt32LE(1_700_000_000, 5 + 4 * k);
	return field;
}
