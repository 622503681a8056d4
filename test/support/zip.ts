/**
 * Zip files of test stores: with the `zip` program when it is installed (deflated entries, as people make them),
 * and always with `writeStoredZip`, a minimal writer of STORED (uncompressed) entries, so that the tests run on a
 * machine with only Node.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";

export const HAS_ZIP_PROGRAM = spawnSync("zip", ["-v"], { stdio: "ignore" }).status === 0;

/** Every file below `folder`, as zip entry names (`/`-separated), sorted. */
function filesBelow(folder: string, prefix = ""): string[] {
	const names: string[] = [];
	for (const entry of fs.readdirSync(path.join(folder, prefix), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
		const name = prefix ? `${prefix}/${entry.name}` : entry.name;
		if (entry.isDirectory()) names.push(...filesBelow(folder, name));
		else if (entry.isFile()) names.push(name);
	}
	return names;
}

let crcTable: Uint32Array | undefined;
function crc32(bytes: Uint8Array): number {
	if (crcTable === undefined) {
		crcTable = new Uint32Array(256);
		for (let n = 0; n < 256; n++) {
			let c = n;
			for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
			crcTable[n] = c >>> 0;
		}
	}
	let crc = 0xffffffff;
	for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
	return (crc ^ 0xffffffff) >>> 0;
}

/**
 * Writes the files of `folder` into `zipFile` as STORED entries (DEFLATED with `deflate`), named relative to the
 * folder (the store at the top, as zarr-python's ZipStore writes it), or under `prefix/` when given.
 */
export function writeStoredZip(folder: string, zipFile: string, options: { prefix?: string; deflate?: boolean } = {}): void {
	const locals: Buffer[] = [];
	const centrals: Buffer[] = [];
	let offset = 0;
	for (const relative of filesBelow(folder)) {
		const name = Buffer.from(options.prefix ? `${options.prefix}/${relative}` : relative, "utf8");
		const raw = fs.readFileSync(path.join(folder, relative));
		const crc = crc32(raw);
		const data = options.deflate ? zlib.deflateRawSync(raw) : raw;
		const method = options.deflate ? 8 : 0;
		const local = Buffer.alloc(30);
		local.writeUInt32LE(0x04034b50, 0);
		local.writeUInt16LE(20, 4); // version needed
		local.writeUInt16LE(0x0800, 6); // UTF-8 names
		local.writeUInt16LE(method, 8);
		local.writeUInt32LE(crc, 14);
		local.writeUInt32LE(data.length, 18);
		local.writeUInt32LE(raw.length, 22);
		local.writeUInt16LE(name.length, 26);
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
		central.writeUInt32LE(offset, 42);
		locals.push(local, name, data);
		centrals.push(central, name);
		offset += local.length + name.length + data.length;
	}
	const directory = Buffer.concat(centrals);
	const end = Buffer.alloc(22);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(centrals.length / 2, 8);
	end.writeUInt16LE(centrals.length / 2, 10);
	end.writeUInt32LE(directory.length, 12);
	end.writeUInt32LE(offset, 16);
	fs.writeFileSync(zipFile, Buffer.concat([...locals, directory, end]));
}

/**
 * Zips `folder` with the `zip` program (deflate): from inside the folder, so the store is at the top, or from
 * its parent (`zip -r store.zip store.zarr`), so everything is under the folder's name.
 */
export function zipWithProgram(folder: string, zipFile: string, options: { fromParent?: boolean } = {}): void {
	const cwd = options.fromParent ? path.dirname(folder) : folder;
	const result = spawnSync("zip", ["-q", "-r", "-X", path.resolve(zipFile), options.fromParent ? path.basename(folder) : "."], { cwd, encoding: "utf8" });
	if (result.status !== 0) throw new Error(`zip failed: ${result.stderr}`);
}
