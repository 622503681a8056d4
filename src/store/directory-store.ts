import * as fs from "node:fs/promises";
import * as path from "node:path";
import type { AbsolutePath, AsyncReadable, GetOptions, RangeQuery } from "./readable.js";
import { Dt64ExportError, systemErrorReason } from "../errors.js";
import type { BufferPool } from "../memory/buffer-pool.js";

/**
 * A local folder as a Zarr store. Unlike @zarrita/storage's FileSystemStore, a range past the end of a file is
 * an error rather than zero padding, so a truncated shard cannot pass for data.
 */
export class DirectoryStore implements AsyncReadable {
	/** `bufferPool`: whole chunk files are read into its buffers (see BufferPool). */
	constructor(
		readonly root: string,
		readonly bufferPool?: BufferPool,
	) {}

	private resolve(key: AbsolutePath): string {
		return path.join(this.root, ...key.split("/").filter((part) => part.length > 0));
	}

	async get(key: AbsolutePath, options: GetOptions = {}): Promise<Uint8Array | undefined> {
		let handle: fs.FileHandle | undefined;
		const file = this.resolve(key);
		try {
			handle = await fs.open(file, "r");
			return await readWhole(handle, this.bufferPool, options.room);
		} catch (error) {
			if (isMissing(error)) return undefined;
			throw new Dt64ExportError("READ_FAILED", `cannot read ${file}: ${systemErrorReason(error as Error)}`);
		} finally {
			await handle?.close();
		}
	}

	async getRange(key: AbsolutePath, range: RangeQuery): Promise<Uint8Array | undefined> {
		let handle: fs.FileHandle | undefined;
		const file = this.resolve(key);
		try {
			handle = await fs.open(file, "r");
			const size = (await handle.stat()).size;
			const [offset, length] = "suffixLength" in range ? [size - range.suffixLength, range.suffixLength] : [range.offset, range.length];
			if (offset < 0 || offset + length > size) {
				throw new Dt64ExportError("CHUNK_CORRUPT", `${file}: byte range ${offset}..${offset + length} is outside the file (${size} bytes)`, { path: file });
			}
			const bytes = new Uint8Array(length);
			const { bytesRead } = await handle.read(bytes, 0, length, offset);
			if (bytesRead !== length) throw new Dt64ExportError("READ_FAILED", `${file}: short read at ${offset}`);
			return bytes;
		} catch (error) {
			if (isMissing(error)) return undefined;
			throw error instanceof Dt64ExportError ? error : new Dt64ExportError("READ_FAILED", `cannot read ${file}: ${systemErrorReason(error as Error)}`);
		} finally {
			await handle?.close();
		}
	}
}

/**
 * The whole file in one buffer of its size, read with as few calls as the kernel allows (one, for a regular file):
 * `readFile` reads in 512 KiB steps, each a round trip through the thread pool, which for chunks of megabytes
 * costs more than the copying.
 */
async function readWhole(handle: fs.FileHandle, pool: BufferPool | undefined, room: number | undefined): Promise<Uint8Array> {
	const { size } = await handle.stat();
	const bytes = pool?.acquire(size, room) ?? Buffer.allocUnsafeSlow(size);
	let filled = 0;
	while (filled < size) {
		const { bytesRead } = await handle.read(bytes, filled, size - filled, filled);
		if (bytesRead === 0) break;
		filled += bytesRead;
	}
	// A file that shrank while it was read yields what it still held; the decoder then refuses a short chunk.
	return filled === size ? bytes : bytes.subarray(0, filled);
}

function isMissing(error: unknown): boolean {
	const code = (error as { code?: string } | null)?.code;
	return code === "ENOENT" || code === "ENOTDIR";
}
