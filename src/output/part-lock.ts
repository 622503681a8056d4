/**
 * The lock a run of a dataset part holds while it writes (`_parts/part-K-of-N.lock`): two runs of the same part
 * into one folder (a batch engine retrying a task while its first attempt still runs) would replace and remove each
 * other's files. The lock file is created exclusively (`wx`: O_CREAT | O_EXCL, atomic on local file systems and
 * NFS v3 or later) and records its holder: pid, host, start and a random token. A second run of the part refuses
 * while the holder runs; a lock whose holder has ended on this host (see processState) is taken over; a lock of
 * another host cannot be checked from here and is taken over only when asked (`breakLock`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Dt64ExportError, systemErrorReason } from "../errors.js";
import type { Part } from "../select/part.js";
import { LOCK_NAME, lockPath, PARTS_FOLDER } from "./dataset-files.js";
import { makeFolder } from "./make-folder.js";
import { processState, thisProcess, type ProcessIdentity, type ProcessState } from "./process-identity.js";

export interface LockHolder extends ProcessIdentity {
	/** `K/N`. */
	readonly part: string;
	/** ISO 8601, UTC. */
	readonly startedAt: string;
	/** Tells this holder's lock from a later one of the same pid and host. */
	readonly token: string;
}

/** A lock found in a dataset folder: its holder and what can be known of it from here. */
export interface FoundLock {
	readonly part: string;
	/** The lock file. */
	readonly file: string;
	/** The file's content, compared before a takeover removes it. */
	readonly text: string;
	/** Undefined when the file cannot be read as a lock (`reason` says why). */
	readonly holder: LockHolder | undefined;
	/** How long ago the lock was last renewed, in ms (its file's modification time). */
	readonly age?: number;
	readonly reason?: string;
	/** `expired`: a lock of a run that cannot be checked from here ("elsewhere") not renewed within LOCK_LEASE_MS. */
	readonly state: ProcessState | "unreadable" | "expired";
}

/** A run renews its lock (the file's modification time) this often while it holds it. */
export const LOCK_RENEWAL_MS = 30_000;
/**
 * A lock of another host (or PID namespace) not renewed for this long is taken as ended: its run was killed outright
 * (an OOM kill, a lost node), and a retry on another node takes it over instead of refusing until `breakLock`.
 * Twenty renewals: a run whose writes stall on a slow file system still renews (the timer does not wait for them).
 */
export const LOCK_LEASE_MS = 10 * 60_000;

/** The locks this process holds: a lock of our pid is ours only if it is here, with its token. */
const held = new Set<PartLock>();

/** Releases every lock this process holds (on a signal or at exit, where no `finally` runs). */
export function releaseHeldPartLocks(): void {
	for (const lock of held) lock.release();
}

/** `pid 123@host since 2021-03-04T05:06:07.000Z`. */
export function describeHolder(holder: LockHolder): string {
	const self = thisProcess();
	const namespace = holder.host === self.host && holder.pidNamespace !== undefined && self.pidNamespace !== undefined && holder.pidNamespace !== self.pidNamespace ? " (in another PID namespace)" : "";
	return `pid ${holder.pid}@${holder.host}${namespace} since ${holder.startedAt}`;
}

/** What a lock found says, for the messages of the export and of commit: `part 1/3 [of folder] is ...`. */
export function describeLock(lock: FoundLock, folder?: string): string {
	const part = `part ${lock.part}${folder === undefined ? "" : ` of ${folder}`}`;
	const holder = lock.holder === undefined ? "" : describeHolder(lock.holder);
	switch (lock.state) {
		case "running":
			return `${part} is being exported by ${holder}`;
		case "ended":
			return `${part} was being exported by ${holder}, which has ended without releasing its lock`;
		case "elsewhere":
			return `${part} is locked by ${holder}, which cannot be checked from ${thisProcess().host}`;
		case "expired":
			return `${part} was locked by ${holder}, which has not renewed its lock for ${Math.round((lock.age ?? 0) / 60_000)} minutes (a run renews it every ${LOCK_RENEWAL_MS / 1000} s), so it has ended`;
		case "unreadable":
			return `${part} has a lock that cannot be read (${lock.reason})`;
	}
}

function isLockHolder(value: unknown): value is LockHolder {
	const holder = value as LockHolder;
	return (
		typeof holder === "object" &&
		holder !== null &&
		Number.isSafeInteger(holder.pid) &&
		holder.pid > 0 &&
		typeof holder.host === "string" &&
		typeof holder.startedAt === "string" &&
		typeof holder.token === "string"
	);
}

/** How long ago a lock file was last renewed (modified), in ms; undefined if it cannot be told. */
function lockAge(file: string): number | undefined {
	try {
		return Math.max(0, Date.now() - fs.statSync(file).mtimeMs);
	} catch {
		return undefined;
	}
}

/** Reads a lock file; undefined once it is gone. A file just created is empty until written: it is read again. */
async function readLock(file: string, part: string): Promise<FoundLock | undefined> {
	for (let attempt = 0; ; attempt++) {
		let text: string;
		try {
			text = fs.readFileSync(file, "utf8");
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
			return { part, file, text: "", holder: undefined, reason: systemErrorReason(error as Error), state: "unreadable" };
		}
		let holder: unknown;
		try {
			holder = JSON.parse(text);
		} catch {
			holder = undefined;
		}
		if (isLockHolder(holder)) {
			// By token, not by path: the same folder may be named through a symbolic link.
			const state = processState(holder, () => [...held].some((lock) => lock.holder.token === holder.token));
			if (state !== "elsewhere") return { part, file, text, holder, state };
			const age = lockAge(file);
			return { part, file, text, holder, age, state: age !== undefined && age > LOCK_LEASE_MS ? "expired" : state };
		}
		if (attempt >= 10) return { part, file, text, holder: undefined, reason: text === "" ? "empty" : "not a lock of this tool", state: "unreadable" };
		await sleep(20);
	}
}

/** The locks in a dataset folder's `_parts/`, by part. */
export async function readPartLocks(folder: string): Promise<FoundLock[]> {
	const partsFolder = path.join(folder, PARTS_FOLDER);
	const names = fs.existsSync(partsFolder) ? fs.readdirSync(partsFolder).filter((name) => LOCK_NAME.test(name)).sort() : [];
	const locks: FoundLock[] = [];
	for (const name of names) {
		const [, index, count] = LOCK_NAME.exec(name)!;
		const lock = await readLock(path.join(partsFolder, name), `${index}/${count}`);
		if (lock !== undefined) locks.push(lock);
	}
	return locks;
}

/** The locks of `locks` whose runs may still write: running, of another host, or unreadable; `own` left out. */
export function activeLocks(locks: readonly FoundLock[], own?: PartLock): FoundLock[] {
	return locks.filter((lock) => !hasEnded(lock) && (own === undefined || path.resolve(lock.file) !== path.resolve(own.file)));
}

/** Whether a lock's run is known to have ended: checked on this host, or its lease expired. */
export function hasEnded(lock: FoundLock): boolean {
	return lock.state === "ended" || lock.state === "expired";
}

/** mkdir -p, returning the folders it created, deepest first. */
function makeFolders(folder: string): string[] {
	let first: string | undefined;
	try {
		first = makeFolder(folder);
	} catch (error) {
		throw new Dt64ExportError("OUTPUT_INVALID", `cannot create the dataset folder ${folder}: ${systemErrorReason(error as Error)}`, { path: folder, cause: error });
	}
	const created: string[] = [];
	if (first === undefined) return created;
	for (let made = path.resolve(folder); ; made = path.dirname(made)) {
		created.push(made);
		if (made === path.resolve(first) || made === path.dirname(made)) break;
	}
	return created;
}

/**
 * The locks' folder (`_parts/`), when another run made it: left empty, it is removed all the same. It holds only what
 * parts write (locks, manifests), so empty it is no one's; parts run at once that all fail left it behind, the one
 * that made it failing while the others' locks were still there (trial 36), and a whole export then refused the
 * dataset folder as not empty. A run about to take its lock there makes it again (createLock's `no-folder`).
 */
function lockFolderOnly(lock: string, created: readonly string[]): string[] {
	const folder = path.resolve(path.dirname(lock));
	return created.includes(folder) ? [] : [folder];
}

function removeEmptyFolders(folders: readonly string[]): void {
	for (const folder of folders) {
		try {
			fs.rmdirSync(folder);
		} catch {
			// Not empty (another part's files, a user's), or gone: it stays as it is.
		}
	}
}

/**
 * Removes the lock `found` saw, and no other: the file is moved aside, then compared; if another run replaced the
 * lock meanwhile (it took over too), its lock is put back. Says whether `found`'s lock was removed.
 */
function removeLock(found: FoundLock, token: string): boolean {
	const aside = path.join(path.dirname(found.file), `.${path.basename(found.file)}.${token}.taken`);
	try {
		fs.renameSync(found.file, aside);
	} catch {
		return false;
	}
	if (fs.readFileSync(aside, "utf8") === found.text) {
		fs.rmSync(aside, { force: true });
		return true;
	}
	try {
		fs.linkSync(aside, found.file);
	} catch (error) {
		// No hard links here (FAT, some shares): renamed back, unless a third run created a lock meanwhile.
		if ((error as NodeJS.ErrnoException).code !== "EEXIST" && !fs.existsSync(found.file)) fs.renameSync(aside, found.file);
	}
	fs.rmSync(aside, { force: true });
	return false;
}

/** Creates the lock file with `text`, unless it exists; `no-folder`: its folder was removed meanwhile. */
function createLock(file: string, text: string): "created" | "exists" | "no-folder" {
	try {
		fs.writeFileSync(file, text, { flag: "wx" });
		return "created";
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "EEXIST") return "exists";
		if (code === "ENOENT") return "no-folder";
		// Created but not written (a full disk): a lock nobody could read must not stay.
		fs.rmSync(file, { force: true });
		throw new Dt64ExportError("WRITE_FAILED", `cannot create the lock ${file}: ${systemErrorReason(error as Error)}`, { path: file, cause: error });
	}
}

function refusal(folder: string, lock: FoundLock, breakable: boolean): Dt64ExportError {
	const what = `${describeLock(lock, folder)} (lock ${lock.file})`;
	const advice =
		lock.state === "running"
			? "wait for that export to end, or stop it, then run the part again if it failed"
			: `once sure that no export of part ${lock.part} runs any more, remove ${lock.file}${breakable ? ", or run the part with `breakLock`" : ""}`;
	return new Dt64ExportError("DATASET_INVALID", `${what}: ${advice}`, { path: lock.file, value: lock.holder });
}

export interface PartLockOptions {
	/** Take over a lock that cannot be checked from here (another host's, or unreadable); never a running one. */
	readonly breakLock?: boolean;
}

export class PartLock {
	readonly file: string;
	readonly holder: LockHolder;
	/** The holder of the lock this one replaced, if any: a run that ended without releasing it. */
	readonly tookOver: FoundLock | undefined;
	readonly #text: string;
	/** The folders acquiring the lock created, to remove once empty when it is released (a run that wrote nothing). */
	readonly #createdFolders: readonly string[];
	#released = false;
	/** Renews the lock while it is held (see LOCK_LEASE_MS); never keeps the process alive. */
	readonly #renewal: NodeJS.Timeout;

	constructor(file: string, holder: LockHolder, text: string, tookOver: FoundLock | undefined, createdFolders: readonly string[]) {
		this.file = file;
		this.holder = holder;
		this.tookOver = tookOver;
		this.#text = text;
		this.#createdFolders = createdFolders;
		held.add(this);
		this.#renewal = setInterval(() => this.renew(), LOCK_RENEWAL_MS).unref();
	}

	/** Sets the lock file's modification time to now, if it is still this lock's (another run may have taken it over). */
	renew(): void {
		try {
			if (fs.readFileSync(this.file, "utf8") !== this.#text) return;
			const now = new Date();
			fs.utimesSync(this.file, now, now);
		} catch {
			// Gone (the folder removed by hand), or the file system refuses for a moment: the next renewal tries again.
		}
	}

	/** Removes the lock file (if it is still this lock's), then the folders acquiring it created, if empty. */
	release(): void {
		if (this.#released) return;
		this.#released = true;
		clearInterval(this.#renewal);
		held.delete(this);
		try {
			if (fs.readFileSync(this.file, "utf8") === this.#text) fs.rmSync(this.file, { force: true });
		} catch {
			// Gone already (the folder removed by hand): nothing to release.
		}
		removeEmptyFolders([...this.#createdFolders, ...lockFolderOnly(this.file, this.#createdFolders)]);
	}
}

/** Attempts at taking over a lock that ended, against other runs taking it over at the same moment. */
const TAKEOVER_ATTEMPTS = 4;

/**
 * Takes part `part`'s lock in the dataset folder `folder` (created if need be), or refuses (DATASET_INVALID) while
 * another run holds it, naming the holder and what to do.
 */
export async function acquirePartLock(folder: string, part: Part, options: PartLockOptions = {}): Promise<PartLock> {
	const file = path.join(folder, lockPath(part));
	const holder: LockHolder = {
		part: `${part.index}/${part.count}`,
		...thisProcess(),
		startedAt: new Date().toISOString(),
		token: process.getBuiltinModule("node:crypto").randomBytes(16).toString("hex"),
	};
	const text = `${JSON.stringify(holder, null, "\t")}\n`;
	const createdFolders = makeFolders(path.dirname(file));
	let tookOver: FoundLock | undefined;
	try {
		for (let attempt = 0; attempt <= TAKEOVER_ATTEMPTS * 4; attempt++) {
			const outcome = createLock(file, text);
			if (outcome === "created") return new PartLock(file, holder, text, tookOver, createdFolders);
			if (outcome === "no-folder") {
				// Removed by another run that had created it and failed: made again, a few times at most.
				if (attempt >= TAKEOVER_ATTEMPTS) throw new Dt64ExportError("WRITE_FAILED", `cannot create the lock ${file}: its folder keeps disappearing`, { path: file });
				createdFolders.unshift(...makeFolders(path.dirname(file)));
				continue;
			}
			const found = await readLock(file, holder.part);
			if (found === undefined) continue;
			const breakable = found.state === "elsewhere" || found.state === "unreadable";
			if (found.state === "running" || (breakable && options.breakLock !== true) || attempt >= TAKEOVER_ATTEMPTS) throw refusal(folder, found, breakable);
			if (removeLock(found, holder.token)) tookOver = found;
		}
		throw new Dt64ExportError("WRITE_FAILED", `cannot take the lock ${file}: other runs of part ${holder.part} keep taking and releasing it`, { path: file });
	} catch (error) {
		removeEmptyFolders([...createdFolders, ...lockFolderOnly(file, createdFolders)]);
		throw error;
	}
}
