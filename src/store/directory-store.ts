import * as fs from "node:fs/promises";
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync, type Stats } from "node:fs";
import * as path from "node:path";
import type { AbsolutePath, AsyncReadable, GetOptions, PositionedFile, RangeQuery } from "./readable.js";
import { FolderListings } from "./folder-listing.js";
import { checkBound, type ValueBound } from "./value-bound.js";
import { throwIfAborted } from "../abort.js";
import { absolutePath } from "../absolute-path.js";
import { RangeOutsideError } from "./range-outside.js";
import { Dt64ExportError, systemErrorReason } from "../errors.js";
import type { BufferPool } from "../memory/buffer-pool.js";

/**
 * A local folder as a Zarr store. Unlike @zarrita/storage's FileSystemStore, a range past the end of a file is
 * an error rather than zero padding, so a truncated shard cannot pass for data.
 */
export class DirectoryStore implements AsyncReadable {
	/** How long the last small reads took (ms), SYNC_READ_WINDOW of them, judged together (see #readSmall). */
	readonly #syncReadTimes = new Float64Array(SYNC_READ_WINDOW);
	#syncReads = 0;
	/** Small reads were slow on this file system: every file is read asynchronously. */
	#syncReadsSlow = false;

	/** The store's folder with its links resolved, once (see #placeOf). */
	#realRoot: string | undefined;
	/** Each folder of keys read so far: inside the store, missing, or where it leads outside it (see #placeOf). */
	readonly #folders = new Map<string, KeyFolder>();

	/** The names of folders of keys some of which were found missing (see FolderListings). */
	readonly #listings = new FolderListings((folderKey) => this.#checkIdentity(`/${folderKey}` as AbsolutePath));

	/**
	 * `bufferPool`: whole chunk files are read into its buffers (see BufferPool). `followLinksOutside`: whether a
	 * symbolic link that leads out of the store is followed (OpenStoreOptions.followLinksOutside); by default it is
	 * refused. Links inside the store are followed either way. `folder`: `root` as an absolute path (see #folder).
	 */
	constructor(
		readonly root: string,
		readonly bufferPool?: BufferPool,
		readonly followLinksOutside = false,
		folder = absolutePath(root),
	) {
		this.#openFlags = followLinksOutside ? OPEN_FLAGS & ~NO_FOLLOW : OPEN_FLAGS;
		this.#folder = folder;
		this.#identity = identityOf(this.#folder);
	}

	/**
	 * The store's folder as an absolute path, resolved once when the store is made: its files are opened there, so that
	 * a change of the process's working folder during an export (`process.chdir` in a program that embeds the library)
	 * changes nothing. `root` stays as given, for messages.
	 */
	readonly #folder: string;

	/** The store folder's device and inode when the store was made (undefined when it could not be read then). */
	readonly #identity: FolderIdentity | undefined;

	/** When the store folder's identity was last checked after a file was read (performance.now()). */
	#identityCheckedAt = 0;

	/**
	 * What a key whose file is found missing answers: undefined (a missing chunk, the fill value), once the store's own
	 * folder is checked to be still the one opened. A store moved, removed, unmounted or switched (a link to it
	 * repointed) during an export would otherwise read as missing chunks, or as another store's: READ_FAILED saying so.
	 * A key of a folder found missing before (#placeOf's kept verdict) is missing without a look: it was missing in the
	 * store opened, which a sparse array's millions of missing chunks need not stat again.
	 */
	#missing(key: AbsolutePath): undefined {
		this.#checkIdentity(key);
		// Its folder's other keys are looked up in its listing from now on: a sparse array's next missing chunk costs no open.
		const slash = key.lastIndexOf("/");
		const folder = slash >= 0 ? this.#folders.get(key.slice(1, Math.max(1, slash))) : undefined;
		if (folder !== undefined) folder.keysMissing = true;
		return undefined;
	}

	/**
	 * After a file is read: the store's folder checked as #missing does, at most every IDENTITY_CHECK_MS, so that a store
	 * switched for another that holds the same keys fails the export too, at the cost of one stat per period.
	 */
	#checkedAfterRead(key: AbsolutePath): void {
		const now = performance.now();
		if (now - this.#identityCheckedAt < IDENTITY_CHECK_MS) return;
		this.#identityCheckedAt = now;
		this.#checkIdentity(key);
	}

	#checkIdentity(key: AbsolutePath): void {
		const before = this.#identity;
		if (before === undefined) return;
		const now = identityOf(this.#folder);
		if (now !== undefined && now.dev === before.dev && now.ino === before.ino) return;
		const what =
			now === undefined
				? `the store ${this.root} is no longer there (moved, removed or unmounted while it was read)`
				: `the store ${this.root} is another folder than the one opened (moved, or a link to it repointed, while it was read)`;
		throw new Dt64ExportError("READ_FAILED", `cannot read ${this.resolve(key)}: ${what}`, { path: this.root, key: key.slice(1) });
	}

	/** OPEN_FLAGS, less O_NOFOLLOW when links out of the store are followed. */
	readonly #openFlags: number;

	private resolve(key: AbsolutePath): string {
		return path.join(this.root, ...key.split("/").filter((part) => part.length > 0));
	}

	/**
	 * The file to open for `key`, undefined when a folder on its way does not exist. A folder of the key that is (or
	 * passes through) a symbolic link leading out of the store is refused before anything is opened; the file itself
	 * is opened without following a link (OPEN_FLAGS), a link being resolved and checked the same way (#linkTarget).
	 * The folders' verdicts are kept: a store of 100,000 chunk files in a few folders resolves a few folders.
	 */
	#placeOf(key: AbsolutePath): string | undefined {
		// A key not written as this package writes them (joinKey), with empty parts: without them.
		if (key.includes("//") || key.endsWith("/")) key = `/${key.split("/").filter((part) => part.length > 0).join("/")}` as AbsolutePath;
		const slash = key.lastIndexOf("/");
		const name = key.slice(slash + 1);
		// "" for a key of the store's own folder (a v2 root array's chunks).
		const folderKey = key.slice(1, Math.max(1, slash));
		let folder = this.#folders.get(folderKey);
		if (folder === undefined) {
			const absolute = folderKey === "" ? this.#folder : path.join(this.#folder, folderKey);
			const place = this.followLinksOutside || folderKey === "" ? INSIDE : this.#resolved(absolute);
			// Found missing now (not kept from before, when its keys were missing anyway): in the store opened?
			if (place === MISSING) this.#checkIdentity(key);
			if (this.#folders.size >= MAX_KEPT_FOLDERS) this.#folders.clear();
			folder = { place, absolute, keysMissing: false };
			this.#folders.set(folderKey, folder);
		}
		if (folder.place === MISSING) return undefined;
		if (folder.place !== INSIDE) throw this.#outside(key, `its folder ${folderKey}`, folder.place);
		// Not in its folder's listing (kept once a key of it was found missing): missing, without opening it.
		if (this.#listings.absent(folderKey, folder.absolute, name, folder.keysMissing)) return undefined;
		return folder.absolute + path.sep + name;
	}

	/** Where `file` leads once its links are resolved: INSIDE the store, MISSING, or the outside path it leads to. */
	#resolved(file: string): FolderPlace {
		let real: string;
		try {
			this.#realRoot ??= realpathSync.native(this.#folder);
			real = realpathSync.native(file);
		} catch (error) {
			if (isMissing(error)) return MISSING;
			throw new Dt64ExportError("READ_FAILED", `cannot read ${file}: ${systemErrorReason(error as Error)}`, { path: this.root, cause: error });
		}
		const root = this.#realRoot;
		return real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep) ? INSIDE : real;
	}

	/**
	 * The file a key's symbolic link leads to (opening it without following links failed with ELOOP), when it stays in
	 * the store; undefined when it leads nowhere (a dangling link: a missing key, as a missing file is).
	 */
	#linkTarget(key: AbsolutePath, file: string): string | undefined {
		const place = this.#resolved(file);
		if (place === MISSING) return undefined;
		if (place !== INSIDE) throw this.#outside(key, "it", place);
		return realpathSync.native(file);
	}

	#outside(key: AbsolutePath, what: string, target: string): Dt64ExportError {
		// A store switched for another (its link repointed) resolves elsewhere: that is what to say.
		this.#checkIdentity(key);
		return new Dt64ExportError(
			"READ_FAILED",
			`cannot read ${this.resolve(key)}: ${what} is a symbolic link that leads out of the store (to ${target}); links out of a store are followed only when asked (\`followLinksOutside\`)`,
			{ path: this.root, key: key.slice(1), option: "followLinksOutside" },
		);
	}

	/**
	 * A key whose folder was found missing, or that is not in its folder's listing (kept once a key of the folder was
	 * found missing, and checked as #placeOf checks it): missing now. Anything else, an error included, is for `get`.
	 */
	isAbsent(key: AbsolutePath): boolean {
		try {
			return this.#placeOf(key) === undefined;
		} catch {
			return false;
		}
	}

	async get(key: AbsolutePath, options: GetOptions = {}): Promise<Uint8Array | undefined> {
		// A local read cannot be cancelled once started: after an abort, none starts.
		throwIfAborted(options.signal);
		if (options.small === true && !this.#syncReadsSlow) {
			const bytes = this.#readSmall(key, options.room, options.bound);
			if (bytes !== LARGE) return bytes;
		}
		return this.#withFile(key, options.signal, (handle, file) => readWhole(handle, this.bufferPool, options.room, (size) => checkBound(file, key, size, options.bound)));
	}

	/**
	 * A small file read on this thread, at once: an asynchronous read is four round trips through libuv's thread
	 * pool (open, stat, read, close), each a hand-off to a thread and back through the event loop, which for a file
	 * of a few hundred bytes costs ten times the reading (measured: 100,000 files of 80 bytes, 13 s of CPU read
	 * asynchronously four at a time, 4 s here). LARGE for a file larger than SYNC_READ_MAX_BYTES (read as others).
	 * A file system that makes these reads slow (a network one, a cold disk) would block the event loop on each: when
	 * the median of a window of them takes SLOW_SYNC_READ_MS or more, this store reads every file asynchronously,
	 * several at once. The median, not each read: on a loaded machine one read in twenty takes milliseconds, the
	 * process being descheduled in the middle of it (measured: median 0.15 ms, 5% over 5 ms at a load of 17 on 2
	 * cores), which says nothing of the file system.
	 */
	#readSmall(key: AbsolutePath, room: number | undefined, bound: ValueBound | undefined): Uint8Array | undefined | typeof LARGE {
		const started = performance.now();
		let opened: OpenedFile | undefined;
		try {
			opened = this.#openSync(key, bound);
			if (opened === undefined) return undefined;
			const { fd, size } = opened;
			if (size > SYNC_READ_MAX_BYTES) return LARGE;
			const bytes = this.bufferPool?.acquire(size, room) ?? Buffer.allocUnsafeSlow(size);
			let filled = 0;
			while (filled < size) {
				const bytesRead = readSync(fd, bytes, filled, size - filled, filled);
				if (bytesRead === 0) break;
				filled += bytesRead;
			}
			this.#checkedAfterRead(key);
			return filled === size ? bytes : bytes.subarray(0, filled);
		} catch (error) {
			if (error instanceof Dt64ExportError) throw error;
			throw readFailed(this.root, opened?.file ?? this.resolve(key), key, error);
		} finally {
			if (opened !== undefined) closeSync(opened.fd);
			this.#timed(performance.now() - started);
		}
	}

	/**
	 * The key's file opened on this thread, as #readSmall opens it (#openSync), left open to be read at positions by
	 * whoever streams it (see PositionedFile): undefined when it is missing.
	 */
	openFile(key: AbsolutePath, options: GetOptions = {}): PositionedFile | undefined {
		throwIfAborted(options.signal);
		const opened = this.#openSync(key, options.bound);
		if (opened === undefined) return undefined;
		try {
			this.#checkedAfterRead(key);
		} catch (error) {
			closeSync(opened.fd);
			throw error;
		}
		return positionedFile(opened, this.root, key);
	}

	/**
	 * The key's file opened on this thread: its folder inside the store, a link resolved and checked, a regular file
	 * within `bound`; the caller closes it. Undefined when it is missing. A failure of the file system is READ_FAILED
	 * naming the file (a link's target once it was followed); this package's own errors pass as they are.
	 */
	#openSync(key: AbsolutePath, bound: ValueBound | undefined): OpenedFile | undefined {
		// Said in messages only: not made for each of a sparse array's missing chunks.
		let target: string | undefined;
		let fd: number | undefined;
		try {
			const place = this.#placeOf(key);
			if (place === undefined) return undefined;
			try {
				fd = openSync(place, this.#openFlags);
			} catch (error) {
				if (!isLink(error)) throw error;
				target = this.#linkTarget(key, place);
				if (target === undefined) return this.#missing(key);
				fd = openSync(target, OPEN_FLAGS);
			}
			const stats = fstatSync(fd);
			const file = this.resolve(key);
			checkRegular(file, key, stats);
			checkBound(file, key, stats.size, bound);
			const opened = { fd, size: stats.size, file: target ?? file };
			fd = undefined;
			return opened;
		} catch (error) {
			if (isMissing(error)) return this.#missing(key);
			if (error instanceof Dt64ExportError) throw error;
			throw readFailed(this.root, target ?? this.resolve(key), key, error);
		} finally {
			if (fd !== undefined) closeSync(fd);
		}
	}

	#timed(ms: number): void {
		const times = this.#syncReadTimes;
		times[this.#syncReads++ % times.length] = ms;
		if (this.#syncReads % times.length !== 0) return;
		const sorted = times.slice().sort();
		if (sorted[sorted.length >> 1] >= SLOW_SYNC_READ_MS) this.#syncReadsSlow = true;
	}

	async getRange(key: AbsolutePath, range: RangeQuery, options: GetOptions = {}): Promise<Uint8Array | undefined> {
		return this.#withFile(key, options.signal, async (handle, file) => {
			const size = (await handle.stat()).size;
			const [offset, length] = "suffixLength" in range ? [size - range.suffixLength, range.suffixLength] : [range.offset, range.length];
			checkWithin(file, key, offset, length, size);
			const bytes = (options.pooled === true ? this.bufferPool?.acquire(length) : undefined) ?? new Uint8Array(length);
			const { bytesRead } = await handle.read(bytes, 0, length, offset);
			if (bytesRead !== length) throw new Dt64ExportError("READ_FAILED", `${file}: short read at ${offset}`, { path: this.root, key: key.slice(1) });
			return bytes;
		});
	}

	/** The ranges in one readv from the first to the end of the last, the bytes between them read into scratch. */
	async getRanges(key: AbsolutePath, ranges: readonly { offset: number; length: number }[], options: GetOptions = {}): Promise<Uint8Array[] | undefined> {
		return this.#withFile(key, options.signal, async (handle, file) => {
			if (ranges.length === 0) return [];
			const size = (await handle.stat()).size;
			const pieces: Uint8Array[] = [];
			const values: Uint8Array[] = [];
			let end = ranges[0].offset;
			for (const [k, { offset, length }] of ranges.entries()) {
				if (offset < end || length < 0) throw new Dt64ExportError("INTERNAL", `${file}: byte ranges must be in increasing order and apart`);
				checkWithin(file, key, offset, length, size);
				if (offset > end) pieces.push(new Uint8Array(offset - end));
				const given = options.into?.[k];
				const bytes = (given?.byteLength === length ? given : undefined) ?? (options.pooled === true ? this.bufferPool?.acquire(length, options.room) : undefined) ?? new Uint8Array(length);
				pieces.push(bytes);
				values.push(bytes);
				end = offset + length;
			}
			const bytesRead = await readIntoPieces(handle, pieces, ranges[0].offset);
			if (bytesRead !== end - ranges[0].offset) throw new Dt64ExportError("READ_FAILED", `${file}: short read at ${ranges[0].offset + bytesRead}`, { path: this.root, key: key.slice(1) });
			return values;
		});
	}

	/**
	 * `read` on the key's file, opened for reading and closed after: undefined when there is no such file. A failure
	 * of the file system is READ_FAILED naming the file (`path`: the store, `key`: the key); this package's own errors
	 * pass as they are.
	 */
	async #withFile<T>(key: AbsolutePath, signal: AbortSignal | undefined, read: (handle: fs.FileHandle, file: string) => Promise<T>): Promise<T | undefined> {
		let handle: fs.FileHandle | undefined;
		const file = this.resolve(key);
		try {
			throwIfAborted(signal);
			const place = this.#placeOf(key);
			if (place === undefined) return undefined;
			try {
				handle = await fs.open(place, this.#openFlags);
			} catch (error) {
				if (!isLink(error)) throw error;
				const target = this.#linkTarget(key, place);
				if (target === undefined) return this.#missing(key);
				handle = await fs.open(target, OPEN_FLAGS);
			}
			// Opened while the export was being aborted: its bytes would be read for nobody.
			throwIfAborted(signal);
			checkRegular(file, key, await handle.stat());
			const value = await read(handle, file);
			this.#checkedAfterRead(key);
			return value;
		} catch (error) {
			if (isMissing(error)) return this.#missing(key);
			if (error instanceof Dt64ExportError || signal?.aborted === true) throw error;
			throw readFailed(this.root, file, key, error);
		} finally {
			await handle?.close();
		}
	}
}

/** A key's file opened on this thread (DirectoryStore's #openSync): its descriptor, bytes, and the path messages name. */
interface OpenedFile {
	readonly fd: number;
	readonly size: number;
	readonly file: string;
}

/** A failure of the file system reading a key's `file` (the path messages name): READ_FAILED, `path` the store's root. */
function readFailed(root: string, file: string, key: AbsolutePath, error: unknown): Dt64ExportError {
	return new Dt64ExportError("READ_FAILED", `cannot read ${file}: ${systemErrorReason(error as Error)}`, { path: root, key: key.slice(1), cause: error });
}

/** An open file of a key (DirectoryStore.openFile): read at positions, closed once. */
function positionedFile({ fd, size, file }: OpenedFile, root: string, key: AbsolutePath): PositionedFile {
	let open = true;
	return {
		fd,
		size,
		name: file,
		readAt(bytes, position) {
			try {
				return readSync(fd, bytes, 0, bytes.byteLength, position);
			} catch (error) {
				throw readFailed(root, file, key, error);
			}
		},
		close() {
			if (!open) return;
			open = false;
			closeSync(fd);
		},
	};
}

/** A folder of keys is in the store (INSIDE), missing (MISSING), or leads outside it (the path it leads to). */
const INSIDE = Symbol("inside");
const MISSING = Symbol("missing");
type FolderPlace = typeof INSIDE | typeof MISSING | string;

/** A folder of keys, as first read: where it is, its absolute path, and whether a key of it was found missing. */
interface KeyFolder {
	readonly place: FolderPlace;
	readonly absolute: string;
	keysMissing: boolean;
}

/** A folder's device and inode: what stays the same while it is the same folder, wherever it is moved. */
interface FolderIdentity {
	readonly dev: number;
	readonly ino: number;
}

/** The identity of the folder at `folder` (links followed), undefined when there is none (or it cannot be read). */
function identityOf(folder: string): FolderIdentity | undefined {
	try {
		const stats = statSync(folder, { throwIfNoEntry: false });
		return stats === undefined ? undefined : { dev: stats.dev, ino: stats.ino };
	} catch {
		return undefined;
	}
}

/**
 * How often (ms) the store's folder is checked to be the one opened while its files are read (DirectoryStore.#checkedAfterRead):
 * a stat costs a microsecond or two, a small chunk file's read some tens.
 */
const IDENTITY_CHECK_MS = 100;

/** Folders whose verdicts are kept at most (a chunk grid may have a folder per row of chunks): past it, forgotten. */
const MAX_KEPT_FOLDERS = 4096;

/**
 * How a key's file is opened: never blocking (a named pipe in a store would otherwise block the open until a writer
 * comes, on the main thread or on one of libuv's four pool threads for good), and without following a symbolic link
 * as its last part (ELOOP: the link is then resolved and checked, see DirectoryStore.#placeOf). Flags a platform
 * lacks are left out (O_NOFOLLOW on Windows, where #placeOf then checks the folders only).
 */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | NO_FOLLOW;

/** Whether opening failed because the file is a symbolic link (O_NOFOLLOW): ELOOP on Linux, EMLINK on FreeBSD. */
function isLink(error: unknown): boolean {
	const code = (error as { code?: string } | null)?.code;
	return code === "ELOOP" || code === "EMLINK";
}

/** Refuses a key that is not a regular file: a folder, a named pipe, a socket, a device. */
function checkRegular(file: string, key: AbsolutePath, stats: Stats): void {
	if (stats.isFile()) return;
	const what = stats.isDirectory() ? "a folder" : stats.isFIFO() ? "a named pipe (FIFO)" : stats.isSocket() ? "a socket" : stats.isCharacterDevice() || stats.isBlockDevice() ? "a device" : "not a file";
	throw new Dt64ExportError("READ_FAILED", `cannot read ${file}: it is ${what}, not a regular file`, { key: key.slice(1) });
}

/** What #readSmall answers for a file it leaves to an asynchronous read. */
const LARGE = Symbol("large");

/** The largest file read on the calling thread when its read is said small (GetOptions.small). */
const SYNC_READ_MAX_BYTES = 1 << 20;

/** Small reads judged together (see DirectoryStore.#readSmall). */
const SYNC_READ_WINDOW = 64;

/**
 * The median time (ms) of small reads past which they are left to the thread pool: a read from the page cache takes
 * tens of microseconds, one over a network a round trip of a millisecond or so, during which the event loop waits.
 */
const SLOW_SYNC_READ_MS = 1;

/** Refuses a byte range past either end of a file (of store key `key`): a truncated shard must not pass for data. */
function checkWithin(file: string, key: AbsolutePath, offset: number, length: number, size: number): void {
	if (offset < 0 || offset + length > size) {
		throw new RangeOutsideError(`${file}: byte range ${offset}..${offset + length} is outside the file (${size} bytes)`, { key: key.slice(1) });
	}
}

/** Buffers one readv takes at most (IOV_MAX on Linux and macOS). */
const MAX_PIECES_PER_READ = 1024;

/**
 * Fills `pieces` with the file's bytes from `position` on, one after the other, in as few calls as the kernel
 * allows (one readv for up to MAX_PIECES_PER_READ of them, for a regular file). Returns the bytes read: fewer than
 * the pieces hold only at the end of the file.
 */
export async function readIntoPieces(handle: Pick<fs.FileHandle, "readv">, pieces: readonly Uint8Array[], position: number): Promise<number> {
	let read = 0;
	let piece = 0;
	// Bytes of pieces[piece] already read (a read may end inside a piece).
	let into = 0;
	while (piece < pieces.length) {
		const batch = pieces.slice(piece, piece + MAX_PIECES_PER_READ);
		batch[0] = batch[0].subarray(into);
		const { bytesRead } = await handle.readv(batch, position + read);
		if (bytesRead === 0) break;
		read += bytesRead;
		let left = bytesRead;
		while (piece < pieces.length && left >= pieces[piece].byteLength - into) {
			left -= pieces[piece].byteLength - into;
			into = 0;
			piece++;
		}
		into += left;
	}
	return read;
}

/**
 * The whole file in one buffer of its size, read with as few calls as the kernel allows (one, for a regular file):
 * `readFile` reads in 512 KiB steps, each a round trip through the thread pool, which for chunks of megabytes
 * costs more than the copying.
 */
async function readWhole(handle: fs.FileHandle, pool: BufferPool | undefined, room: number | undefined, check: (size: number) => void): Promise<Uint8Array> {
	const { size } = await handle.stat();
	check(size);
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
