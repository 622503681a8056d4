/**
 * Bounds on finding a group's nodes by listing an object store (store-tree.ts walkListing, prefix-listing.ts): the
 * bucket's server decides what a listing says, and a hostile or broken one can list a group tree without end (a
 * prefix in every prefix, hundreds of thousands of members, empty pages each with a new continuation token). Real
 * stores nest a few groups deep and hold at most thousands of arrays, which are better read through consolidated
 * metadata (one request) anyway; past these the walk stops and says how to do without it.
 */
import { Dt64ExportError } from "../errors.js";

/** Groups below the walk's root, nested: zarr stores nest a few deep. */
export const MAX_LISTED_DEPTH = 32;
/** Child prefixes listed in the whole walk (each costs a metadata read or two). */
export const MAX_LISTED_MEMBERS = 20_000;
/** Pages in a row without a member or a key, each naming a next page: a listing that never ends. */
export const MAX_EMPTY_PAGES = 100;

const WITHOUT_LISTING = "name the array (`array`) or the variables (`columns`), or give the store consolidated metadata (one request)";

export function listedTooDeep(shownAs: string): Dt64ExportError {
	return new Dt64ExportError("TOO_LARGE", `${shownAs}: groups nested more than ${MAX_LISTED_DEPTH} deep found by listing, where stores nest a few: ${WITHOUT_LISTING}`, { path: shownAs, value: MAX_LISTED_DEPTH });
}

export function listedTooMany(shownAs: string): Dt64ExportError {
	return new Dt64ExportError("TOO_LARGE", `${shownAs}: more than ${MAX_LISTED_MEMBERS} members found by listing the group tree: ${WITHOUT_LISTING}`, { path: shownAs, value: MAX_LISTED_MEMBERS });
}
