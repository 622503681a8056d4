/**
 * The names in a store's folders of chunk keys, listed once, so that a key not there is known missing without a
 * failed open (and the check that the store is still the one opened, which a missing file needs: see
 * DirectoryStore.#missing). A sparse array (zarr-python 3 writes no chunk that is all fill, `write_empty_chunks=False`)
 * has runs of missing chunks: 900,000 of them in a folder of 100,000 files took 12 of an export's 14 s in failed
 * opens and stats.
 *
 * A listing is only trusted while it is true: the folder is stat'ed again at most every FRESH_MS (a key read as
 * missing was so at most that long before, as a chunk read ahead is read before its turn), and a folder whose
 * identity, modification or change time differs is listed again; one modified within RACY_MS of its listing (a
 * file added in the same tick of the file system's clock would leave the time as it was) is not trusted until it has
 * stayed so for that long, its keys opened one by one meanwhile. A folder of more than MAX_LISTED_NAMES entries is
 * never listed (its names would take more memory than chunks in flight).
 */
import { opendirSync, statSync, type BigIntStats } from "node:fs";

/** How long a listing answers without its folder being stat'ed again (ms): as long as the event loop may be held. */
const FRESH_MS = 20;

/**
 * A folder modified this recently (ms, by the file system's clock) when listed may have changed within the same tick
 * of it: its listing is not trusted until it is this old. Coarse clocks tick in milliseconds (ext4, XFS), FAT's in 2 s.
 */
const RACY_MS = 2_000;

/** Entries of a folder listed at most: past it, its keys are opened one by one. */
const MAX_LISTED_NAMES = 1 << 18;

/**
 * Folders whose listings are kept at most (a chunk grid may have a folder per row of chunks), and names in all of
 * them (a few tens of MB): past either, they are forgotten, and listed again as their keys are found missing.
 */
const MAX_KEPT_LISTINGS = 64;
const MAX_KEPT_NAMES = 1 << 19;

interface Listing {
	/** The names in the folder; undefined when it is not trusted (too recent, changing, too large). */
	readonly names: Set<string> | undefined;
	/** The folder's stat when listed: a change of any of these is a change of its names. */
	readonly stamp: string;
	/** When the folder was last seen as listed (performance.now()). */
	checkedAt: number;
	/** Not trusted: when to try listing it again. */
	readonly retryAt: number;
}

function stampOf(stats: BigIntStats): string {
	return `${stats.dev}:${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/** The folder's stat, undefined when it is gone or cannot be read (its keys are then opened one by one). */
function statOf(folder: string): BigIntStats | undefined {
	try {
		return statSync(folder, { bigint: true, throwIfNoEntry: false });
	} catch {
		return undefined;
	}
}

/** The names in `folder`, undefined past `limit` entries. */
function namesIn(folder: string, limit: number): Set<string> | undefined {
	const names = new Set<string>();
	const dir = opendirSync(folder, { bufferSize: 1024 });
	try {
		for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
			if (names.size >= limit) return undefined;
			names.add(entry.name);
		}
	} finally {
		dir.closeSync();
	}
	return names;
}

export class FolderListings {
	readonly #listings = new Map<string, Listing>();
	/** The names the listings kept hold. */
	#names = 0;
	/**
	 * Called with a folder's key as it is listed: the folder must be the store's as opened (a link repointed lists
	 * another store); throws otherwise.
	 */
	readonly #checkStore: (folderKey: string) => void;

	constructor(checkStore: (folderKey: string) => void) {
		this.#checkStore = checkStore;
	}

	/**
	 * Whether the file `name` of `folder` (an absolute path; its key in the store `folderKey`) is known not to exist,
	 * from the folder's listing; false when it may exist, or the folder is not listed (the caller then opens it).
	 * `list`: the folder is listed if it is not yet (a key of it was found missing): a folder whose keys are all there
	 * is never listed.
	 */
	absent(folderKey: string, folder: string, name: string, list: boolean): boolean {
		const now = performance.now();
		let listing = this.#listings.get(folder);
		if (listing === undefined) {
			if (!list) return false;
			listing = this.#list(folderKey, folder, now);
		} else if (listing.names === undefined) {
			if (now < listing.retryAt) return false;
			listing = this.#list(folderKey, folder, now);
		} else if (now - listing.checkedAt >= FRESH_MS) {
			const stats = statOf(folder);
			if (stats === undefined) {
				this.#listings.delete(folder);
				return false;
			}
			if (stampOf(stats) === listing.stamp) listing.checkedAt = now;
			else listing = this.#list(folderKey, folder, now);
		}
		return listing.names !== undefined && !listing.names.has(name);
	}

	#list(folderKey: string, folder: string, now: number): Listing {
		const listing = this.#listed(folderKey, folder, now);
		const size = listing.names?.size ?? 0;
		this.#names -= this.#listings.get(folder)?.names?.size ?? 0;
		if (this.#listings.size >= MAX_KEPT_LISTINGS || this.#names + size > MAX_KEPT_NAMES) {
			this.#listings.clear();
			this.#names = 0;
		}
		this.#names += size;
		this.#listings.set(folder, listing);
		return listing;
	}

	#listed(folderKey: string, folder: string, now: number): Listing {
		const untrusted = (stamp: string, retryAt = now + RACY_MS): Listing => ({ names: undefined, stamp, checkedAt: now, retryAt });
		const before = statOf(folder);
		if (before === undefined) return untrusted("");
		const stamp = stampOf(before);
		const wall = Date.now();
		// A change after the listing sets the time to the clock's: different unless the last one was as recent.
		if (wall - Number(before.mtimeMs) < RACY_MS) return untrusted(stamp);
		let names: Set<string> | undefined;
		try {
			names = namesIn(folder, MAX_LISTED_NAMES);
		} catch {
			return untrusted(stamp);
		}
		// Too large to hold: never listed again.
		if (names === undefined) return untrusted(stamp, Number.POSITIVE_INFINITY);
		// Changed while it was listed: the names may be neither the old ones nor the new.
		const after = statOf(folder);
		if (after === undefined || stampOf(after) !== stamp) return untrusted(stamp);
		// Listed from the store opened, not from another one a link now leads to.
		this.#checkStore(folderKey);
		return { names, stamp, checkedAt: now, retryAt: 0 };
	}
}
