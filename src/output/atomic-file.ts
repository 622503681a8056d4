import * as fs from "node:fs";
import * as path from "node:path";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import type { BufferPool } from "../memory/buffer-pool.js";
import { Dt64ExportError, isDt64ExportError, systemErrorReason, writeFailure } from "../errors.js";
import { danglingLinkTarget, outputFolder, statOutput } from "./output-path.js";
import { pidExists } from "./process-identity.js";

/** Temporary files not yet renamed, removed on a signal or an uncaught failure by `removePendingTempFiles`. */
const pending = new Set<string>();

export function removePendingTempFiles(): void {
	for (const file of pending) {
		try {
			fs.rmSync(file, { force: true });
		} catch {
			// Best effort while exiting: the file may already be gone.
		}
		pending.delete(file);
	}
}

const fsync = promisify(fs.fsync);
const close = promisify(fs.close);

/**
 * Errors of `link` on a file system without hard links (FAT, some network shares): there the file is renamed
 * after checking that the target is still free, which leaves a moment in which a file created there is replaced.
 */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

function outputExists(target: string): Dt64ExportError {
	return new Dt64ExportError("OUTPUT_EXISTS", `${target} already exists`, { path: target });
}

/** A temporary file an export killed outright left beside its target (see strayTemporaryFiles). */
export interface StrayTemporaryFile {
	readonly path: string;
	readonly bytes: number;
}

/**
 * The temporary files beside `target` that an export of it killed outright (SIGKILL, the OOM killer: nothing could
 * remove them) left: named as AtomicFileWriter names them, by a process that no longer runs on this machine. They
 * are only named, never removed: a process of another machine writing to a shared folder has a pid this one cannot
 * see. A file named with this process's pid is its own only while one of its writers has it open: otherwise an
 * earlier process had the pid, as a container's exporter, pid 1 after every restart, does (the part locks tell such a
 * process by the same rule, process-identity.ts; a temporary file's name has no room for the PID namespace, boot and
 * start time a lock records).
 */
export function strayTemporaryFiles(target: string): StrayTemporaryFile[] {
	let replaced: string;
	try {
		replaced = fs.realpathSync(target);
	} catch {
		replaced = path.resolve(target);
	}
	const folder = path.dirname(replaced);
	const pattern = new RegExp(`^\\.${escapeRegExp(path.basename(replaced))}\\.(\\d+)\\.[0-9a-f]{8}\\.tmp$`);
	let names: string[];
	try {
		names = fs.readdirSync(folder);
	} catch {
		return [];
	}
	const stray: StrayTemporaryFile[] = [];
	// This process's own, as the folder is named here (its writers may have been given a relative or linked path).
	const ours = new Set([...pending].map(realPathOf));
	for (const name of names.sort()) {
		const pid = pattern.exec(name)?.[1];
		const file = path.join(folder, name);
		if (pid === undefined || ours.has(realPathOf(file)) || (Number(pid) !== process.pid && pidExists(Number(pid)))) continue;
		const stat = fs.statSync(file, { throwIfNoEntry: false });
		if (stat?.isFile()) stray.push({ path: file, bytes: stat.size });
	}
	return stray;
}

function realPathOf(file: string): string {
	try {
		return fs.realpathSync(file);
	} catch {
		return path.resolve(file);
	}
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Temporary names tried before a folder is said not writable: each is taken only if no file has it. */
const TEMP_NAME_ATTEMPTS = 8;

/** How many written bytes start a background flush: large enough that flushes are few, small enough to overlap. */
const FLUSH_STEP_BYTES = 32 * 2 ** 20;

/** The part of `buffers` after the first `written` bytes, without copying. */
export function remainingAfter(buffers: Buffer[], written: number): Buffer[] {
	const rest: Buffer[] = [];
	for (const buffer of buffers) {
		if (written >= buffer.length) {
			written -= buffer.length;
			continue;
		}
		rest.push(written > 0 ? buffer.subarray(written) : buffer);
		written = 0;
	}
	return rest;
}

/**
 * Gives the file replacing `replaced` its owner and group, as far as the system lets this process (trial 22: 13: a
 * service running as root replaced a tenant's file with one of root's, which the tenant could no longer read): root
 * sets both; another user keeps the file its own and sets the group when it belongs to it (as `cp -p` does). Anything
 * the system refuses is left as the new file has it: the owner (and ACLs, extended attributes) are not the content.
 */
function keepOwnership(fd: number, replaced: fs.Stats): void {
	const uid = process.getuid?.();
	const gid = process.getgid?.();
	if (uid === undefined || (replaced.uid === uid && replaced.gid === gid)) return;
	try {
		fs.fchownSync(fd, replaced.uid, replaced.gid);
		return;
	} catch {
		// Not root: the owner cannot be given away; the group can be one of this user's.
	}
	try {
		fs.fchownSync(fd, uid, replaced.gid);
	} catch {
		// A group this user is not in: the new file keeps its own.
	}
}

/** Gives the file open at `fd` the owner, group (see keepOwnership) and permissions of the file it replaces. */
function keepAttributes(fd: number, replaced: fs.Stats): void {
	// Owner and group first: a change of owner clears the set-user-ID and set-group-ID bits, which the mode restores.
	keepOwnership(fd, replaced);
	try {
		fs.fchmodSync(fd, replaced.mode & 0o7777);
	} catch {
		// Another user's file in a folder we may write: the new file is ours, with the default permissions.
	}
}

/**
 * Gives `file`, written aside to be renamed over `target`, what AtomicFileWriter gives a file that replaces another:
 * `target`'s permissions, owner and group (a dataset's files written aside by a part's run or a whole export that
 * replaces the dataset, trial 25: 14). Nothing when `target` is no file.
 */
export function keepAttributesOf(target: string, file: string): void {
	let replaced: fs.Stats;
	try {
		replaced = fs.statSync(target);
	} catch {
		return;
	}
	if (!replaced.isFile()) return;
	const fd = fs.openSync(file, "r");
	try {
		keepAttributes(fd, replaced);
	} finally {
		fs.closeSync(fd);
	}
}

/** Where AtomicFileWriter writes a target: the file renamed over, and the folder its temporary file goes in. */
interface FileTarget {
	readonly existing: fs.Stats | undefined;
	/** The file renamed over: the target, or the file a symbolic link target points to. */
	readonly replaced: string;
	readonly folder: string;
}

/**
 * The refusals of a file output that need nothing but the path: a folder, a device or a pipe, a file that exists
 * without `overwrite` (OUTPUT_EXISTS), a dangling symbolic link, a folder that does not exist. AtomicFileWriter makes
 * them when it is created; checkFileOutput before anything is read.
 */
function fileTarget(target: string, overwrite: boolean): FileTarget {
	const existing = statOutput(target);
	// A folder is never replaced, overwrite or not: refused before the export reads anything, not after it ran.
	if (existing?.isDirectory()) throw new Dt64ExportError("OUTPUT_INVALID", `${target} is a folder: name a file to write`, { path: target });
	// Nor is a device, a pipe or a socket (/dev/null, a FIFO): the rename would put a file in its place. The CLI
	// writes those in place, never through this writer; a library caller streams to them (exportTable).
	if (existing !== undefined && !existing.isFile()) {
		throw new Dt64ExportError("OUTPUT_INVALID", `${target} is not a regular file (a device, a pipe or a socket), which a file written all or nothing would replace: write to it as a stream (exportTable with fs.createWriteStream)`, { path: target });
	}
	if (!overwrite && fs.existsSync(target)) throw outputExists(target);
	// The folder as the system resolves the path: the temporary file goes there, beside the file it becomes.
	const folder = outputFolder(target);
	// A symbolic link to a file that does not exist: as through any link, the file written is the one it points
	// to, which is created, and only when overwriting is asked for (the link's name is taken: cp refuses too).
	const linkedTo = existing === undefined ? danglingLinkTarget(target) : undefined;
	if (linkedTo !== undefined) {
		if (!overwrite) {
			throw new Dt64ExportError("OUTPUT_EXISTS", `${target} is a symbolic link to ${linkedTo}, which does not exist: overwriting writes that file`, { path: target });
		}
		const linkedFolder = path.dirname(linkedTo);
		if (!fs.existsSync(linkedFolder)) throw new Dt64ExportError("OUTPUT_INVALID", `${target} is a symbolic link into a folder that does not exist: ${linkedFolder}`, { path: target });
	}
	const replaced = existing ? fs.realpathSync.native(target) : (linkedTo ?? target);
	return { existing, replaced, folder: existing || linkedTo !== undefined ? path.dirname(replaced) : folder };
}

/** The refusal of a folder that takes no new file (read-only file system, permissions): OUTPUT_INVALID, naming it. */
function folderRefusal(folder: string, error: unknown): Dt64ExportError | undefined {
	const code = (error as NodeJS.ErrnoException).code;
	return code === "EACCES" || code === "EROFS" || code === "EPERM" ? new Dt64ExportError("OUTPUT_INVALID", `cannot create a file in ${folder}: ${systemErrorReason(error as Error)}`, { path: folder, cause: error }) : undefined;
}

/**
 * Refuses, before an export opens its store, a file output AtomicFileWriter would refuse (see fileTarget: an existing
 * file without `overwrite` is OUTPUT_EXISTS) or could not create its temporary file beside (a folder this process may
 * not write in, a read-only file system: OUTPUT_INVALID). Refused once the store's chunks were read, the export had
 * compiled its decoders and started its threads for nothing (75 MiB for an OUTPUT_EXISTS). The writer checks again
 * when it is created, and the rename cannot replace a file that appears meanwhile.
 */
export function checkFileOutput(target: string, overwrite: boolean): void {
	const { folder } = fileTarget(target, overwrite);
	try {
		fs.accessSync(folder, fs.constants.W_OK);
	} catch (error) {
		const refusal = folderRefusal(folder, error);
		if (refusal !== undefined) throw refusal;
	}
}

/**
 * A file written all or nothing: bytes go to a temporary file beside the target, which is fsynced and moved to
 * the target when the stream finishes, and removed when it is destroyed with an error. Without `overwrite`, the
 * move cannot replace a file, not even one another program created at the target during the export: the
 * temporary file is hard-linked to the target (which fails if the name is taken) and then unlinked. With
 * `overwrite` it is renamed over the target: a file replaced keeps its permissions (a private 600 file stays
 * private), its owner and group as far as the system lets (see keepOwnership), and a symbolic link keeps pointing to the file it names, which is the one replaced. The final fsync
 * and move run off the event loop.
 */
export class AtomicFileWriter extends Writable {
	readonly tempPath: string;
	/** The file renamed over: the target, or the file a symbolic link target points to. */
	readonly #replaced: string;
	#fd: number | undefined;
	/**
	 * Calls on the descriptor not yet returned (writes, flushes): it is closed only once there are none. A write
	 * queued in libuv's thread pool runs whenever a thread is free; closed under it, its number goes to the next file
	 * the process opens, and the write lands in that file (a store's chunk, in the fuzz test).
	 */
	#callsInFlight = 0;
	readonly #onIdle: (() => void)[] = [];
	/** Bytes written since the last background flush started. */
	#unflushed = 0;
	#flushing: Promise<void> | undefined;
	#flushError: Error | undefined;
	readonly #bufferPool: BufferPool | undefined;
	readonly #overwrite: boolean;

	constructor(
		readonly target: string,
		options: {
			overwrite?: boolean;
			/** Buffers of this pool are handed back once written in full (see BufferPool). */
			bufferPool?: BufferPool;
		} = {},
	) {
		super({ highWaterMark: 1 << 20 });
		this.#bufferPool = options.bufferPool;
		this.#bufferPool?.expectWrittenBack();
		this.#overwrite = options.overwrite ?? false;
		// Checked here too, not only when the file is moved: an export that cannot be written fails before it starts.
		const { existing, replaced, folder } = fileTarget(target, this.#overwrite);
		this.#replaced = replaced;
		// A name no file has: "wx" creates it or fails (a symbolic link of that name included), and another name is
		// tried then. Math.random, not node:crypto, which the CLI would load for this alone (about 5 ms at start).
		for (let attempt = 1; ; attempt++) {
			const suffix = Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, "0");
			this.tempPath = path.join(folder, `.${path.basename(this.#replaced)}.${process.pid}.${suffix}.tmp`);
			try {
				this.#fd = fs.openSync(this.tempPath, "wx");
				break;
			} catch (error) {
				const code = (error as NodeJS.ErrnoException).code;
				if (code === "EEXIST" && attempt < TEMP_NAME_ATTEMPTS) continue;
				// A folder that takes no new file (read-only file system, permissions) is where the output cannot be
				// created, as a dataset folder that cannot be created is: OUTPUT_INVALID, not a write that failed midway
				// (trial 26: 03). The temporary file's name, in Node's message, is no concern of the reader's.
				throw folderRefusal(folder, error) ?? new Dt64ExportError("WRITE_FAILED", `cannot write in ${folder}: ${systemErrorReason(error as Error)}`, { path: folder, cause: error });
			}
		}
		pending.add(this.tempPath);
		if (existing) keepAttributes(this.#fd, existing);
	}

	override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
		this.#writeAll([chunk], this.#releasing([chunk], callback));
	}

	override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
		const buffers = chunks.map((c) => c.chunk);
		this.#writeAll(buffers, this.#releasing(buffers, callback));
	}

	/** Once `buffers` are written, their bytes are on their way to disk: pooled ones go back to the pool. */
	#releasing(buffers: Buffer[], callback: (error?: Error | null) => void): (error?: Error | null) => void {
		const pool = this.#bufferPool;
		if (pool === undefined) return callback;
		return (error) => {
			if (!error) for (const buffer of buffers) pool.release(buffer);
			callback(error);
		};
	}

	/** Writes every byte of `buffers`: a write may be short (a signal, a nearly full disk), so the rest follows. */
	#writeAll(buffers: Buffer[], callback: (error?: Error | null) => void): void {
		const fd = this.#fd;
		if (fd === undefined || this.destroyed) {
			callback(this.#ioError(new Error("the file is closed")));
			return;
		}
		const total = buffers.reduce((sum, b) => sum + b.length, 0);
		this.#callStarted();
		fs.writev(fd, buffers, (error, written) => {
			this.#callEnded();
			if (error) {
				callback(this.#ioError(error));
				return;
			}
			this.#unflushed += written;
			this.#flushInBackground();
			if (written === total) {
				callback(this.#flushError === undefined ? null : this.#ioError(this.#flushError));
				return;
			}
			this.#writeAll(remainingAfter(buffers, written), callback);
		});
	}

	/**
	 * Starts writing dirty pages to disk while the export goes on (one flush at a time, every FLUSH_STEP_BYTES), so
	 * that the final fsync, which the rename has to wait for, only has the tail left to flush.
	 */
	#flushInBackground(): void {
		if (this.#flushing !== undefined || this.#unflushed < FLUSH_STEP_BYTES || this.#fd === undefined) return;
		this.#unflushed = 0;
		const fd = this.#fd;
		this.#callStarted();
		this.#flushing = new Promise((resolve) => {
			fs.fdatasync(fd, (error) => {
				this.#callEnded();
				if (error) this.#flushError ??= error;
				this.#flushing = undefined;
				resolve();
			});
		});
	}

	override _final(callback: (error?: Error | null) => void): void {
		this.#publish().then(
			() => callback(),
			(error: Error) => callback(error),
		);
	}

	/** Flushes the temporary file to disk and moves it to the target; `_destroy` removes it if this fails. */
	async #publish(): Promise<void> {
		await this.#flushing;
		const fd = this.#fd;
		try {
			if (fd === undefined) throw new Error("the file is closed");
			if (this.#flushError !== undefined) throw this.#flushError;
			this.#callStarted();
			try {
				await fsync(fd);
			} finally {
				this.#callEnded();
			}
			// Destroyed meanwhile: _destroy closed it once the fsync returned.
			if (this.#fd !== fd) throw new Error("the file is closed");
			this.#fd = undefined;
			await close(fd);
			if (this.#overwrite) await fs.promises.rename(this.tempPath, this.#replaced);
			else await this.#moveWithoutReplacing();
		} catch (error) {
			throw isDt64ExportError(error) ? error : this.#ioError(error as Error);
		}
		pending.delete(this.tempPath);
	}

	/** rename(2) would replace a file that appeared at the target since the constructor's check; link(2) cannot. */
	async #moveWithoutReplacing(): Promise<void> {
		try {
			await fs.promises.link(this.tempPath, this.#replaced);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code ?? "";
			if (code === "EEXIST") throw outputExists(this.target);
			if (!NO_HARD_LINKS.has(code)) throw error;
			if (await fs.promises.lstat(this.#replaced).then(() => true, () => false)) throw outputExists(this.target);
			await fs.promises.rename(this.tempPath, this.#replaced);
			return;
		}
		await fs.promises.unlink(this.tempPath);
	}

	override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
		// Removed now, not after a flush in flight: `pipeline` reports the failure without waiting for this callback,
		// and nothing may be left beside the target by then. An open file that is unlinked can still be flushed.
		if (pending.has(this.tempPath)) {
			fs.rmSync(this.tempPath, { force: true });
			pending.delete(this.tempPath);
		}
		const close = () => {
			if (this.#fd !== undefined) {
				fs.closeSync(this.#fd);
				this.#fd = undefined;
			}
			callback(error);
		};
		// A write or flush in flight still uses the descriptor: closing it now would hand its number to the next file
		// opened, which the call would then write to.
		if (this.#callsInFlight === 0) close();
		else this.#onIdle.push(close);
	}

	#callStarted(): void {
		this.#callsInFlight++;
	}

	#callEnded(): void {
		if (--this.#callsInFlight === 0) for (const wake of this.#onIdle.splice(0)) wake();
	}

	#ioError(error: Error): Error {
		return writeFailure(this.target, error);
	}
}
