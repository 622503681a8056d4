/**
 * Listing an object store the way a folder is read: the children of one prefix, split at `/` (S3's and GCS's
 * `delimiter=/`). This is how groups are found in a bucket without consolidated metadata (see store-tree.ts).
 */
import { Dt64ExportError } from "../errors.js";
import { listingFailure } from "./listing-errors.js";
import { listedTooMany, MAX_EMPTY_PAGES, MAX_LISTED_MEMBERS } from "./listing-bounds.js";

export interface PrefixListing {
	/** The child "folders": names of the common prefixes one level down, without the trailing `/`. */
	readonly folders: readonly string[];
	/** The objects directly under the prefix, by name. */
	readonly files: readonly string[];
}

/** Lists the children of `path` ("" for the store's root, else a relative path like `a/b`), its requests cut short by `signal`. */
export type ListPrefix = (path: string, signal?: AbortSignal) => Promise<PrefixListing>;

/** One page of a listing: full keys, and where the next page starts (undefined on the last one). */
export interface ListingPage {
	readonly prefixes: readonly string[];
	readonly keys: readonly string[];
	readonly next: string | undefined;
}

/** More pages than this for one prefix is a listing that does not end (a service repeating itself), not a group. */
const MAX_PAGES = 100_000;

/**
 * Reads every page of a listing under `prefix` (ending in `/`, or "" for a bucket's root) and returns the names
 * relative to it. `page` fetches one page given the previous one's continuation token.
 */
export async function listAllPages(prefix: string, shownAs: string, page: (token: string | undefined) => Promise<ListingPage>): Promise<PrefixListing> {
	const folders = new Set<string>();
	const files: string[] = [];
	const seen = new Set<string>();
	let token: string | undefined;
	let empty = 0;
	for (let count = 0; ; count++) {
		if (count === MAX_PAGES) throw new Dt64ExportError("READ_FAILED", `listing ${shownAs}: more than ${MAX_PAGES} pages`, { path: shownAs });
		// A refused page is a refused listing, said as one (a caller may read objects it may not list).
		const answer = await page(token).catch((error: unknown) => {
			throw listingFailure(shownAs, error);
		});
		for (const key of answer.prefixes) {
			// A service may return keys outside the prefix only by mistake; they are not children.
			if (!key.startsWith(prefix)) continue;
			const name = key.slice(prefix.length).replace(/\/$/, "");
			if (name !== "" && !name.includes("/")) folders.add(name);
		}
		// Counted as the pages come: one prefix of endless pages is refused as early as a tree of many.
		if (folders.size > MAX_LISTED_MEMBERS) throw listedTooMany(shownAs);
		for (const key of answer.keys) {
			const name = key.slice(prefix.length);
			if (key.startsWith(prefix) && name !== "" && !name.includes("/")) files.push(name);
		}
		if (answer.next === undefined) break;
		empty = answer.prefixes.length === 0 && answer.keys.length === 0 ? empty + 1 : 0;
		if (empty > MAX_EMPTY_PAGES) {
			throw new Dt64ExportError("READ_FAILED", `listing ${shownAs}: more than ${MAX_EMPTY_PAGES} pages in a row listed nothing, each naming a next page: a listing that does not end`, { path: shownAs });
		}
		if (seen.has(answer.next)) throw new Dt64ExportError("READ_FAILED", `listing ${shownAs}: the service returned the same continuation token twice`, { path: shownAs });
		seen.add(answer.next);
		token = answer.next;
	}
	return { folders: [...folders].sort(), files: files.sort() };
}
