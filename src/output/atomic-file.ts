import * as fs from "node:fs";
import * as path from "node:path";
import { Writable } from "node:stream";
import { randomBytes } from "node:crypto";
import { Dt64ExportError } from "../errors.js";

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

/**
 * A file written all or nothing: bytes go to a temporary file beside the target, which is fsynced and renamed
 * over the target when the stream finishes, and removed when it is destroyed with an error. A file replaced keeps
 * its permissions (a private 600 file stays private), and a symbolic link keeps pointing to the file it names,
 * which is the one replaced.
 */
export class AtomicFileWriter extends Writable {
	readonly tempPath: string;
	/** The file renamed over: the target, or the file a symbolic link target points to. */
	readonly #replaced: string;
	#fd: number | undefined;

	constructor(
		readonly target: string,
		options: { overwrite?: boolean } = {},
	) {
		super({ highWaterMark: 1 << 20 });
		const directory = path.dirname(path.resolve(target));
		if (!options.overwrite && fs.existsSync(target)) {
			throw new Dt64ExportError(`${target} already exists (use --force to overwrite)`, { kind: "io" });
		}
		if (!fs.existsSync(directory)) throw new Dt64ExportError(`output folder does not exist: ${directory}`, { kind: "io" });
		const existing = fs.statSync(target, { throwIfNoEntry: false });
		this.#replaced = existing ? fs.realpathSync(target) : target;
		this.tempPath = path.join(path.dirname(path.resolve(this.#replaced)), `.${path.basename(this.#replaced)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
		try {
			this.#fd = fs.openSync(this.tempPath, "wx");
		} catch (error) {
			throw new Dt64ExportError(`cannot write in ${path.dirname(this.tempPath)}: ${(error as Error).message}`, { kind: "io" });
		}
		pending.add(this.tempPath);
		if (existing) {
			try {
				fs.fchmodSync(this.#fd, existing.mode & 0o7777);
			} catch {
				// Another user's file in a folder we may write: the new file is ours, with the default permissions.
			}
		}
	}

	override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
		fs.write(this.#fd!, chunk, 0, chunk.length, null, (error) => callback(error ? this.#ioError(error) : null));
	}

	override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
		fs.writev(this.#fd!, chunks.map((c) => c.chunk), (error) => callback(error ? this.#ioError(error) : null));
	}

	override _final(callback: (error?: Error | null) => void): void {
		try {
			fs.fsyncSync(this.#fd!);
			fs.closeSync(this.#fd!);
			this.#fd = undefined;
			fs.renameSync(this.tempPath, this.#replaced);
			pending.delete(this.tempPath);
			callback();
		} catch (error) {
			callback(this.#ioError(error as Error));
		}
	}

	override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
		if (this.#fd !== undefined) {
			fs.closeSync(this.#fd);
			this.#fd = undefined;
		}
		if (pending.has(this.tempPath)) {
			fs.rmSync(this.tempPath, { force: true });
			pending.delete(this.tempPath);
		}
		callback(error);
	}

	#ioError(error: Error): Error {
		return new Dt64ExportError(`cannot write ${this.target}: ${error.message}`, { kind: "io" });
	}
}
