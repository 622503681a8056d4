import { fileURLToPath } from "node:url";
import { UsageError } from "../errors.js";
import { hasVerbatimKeys } from "./bucket-url.js";

/** Refuses a store location that names nothing: an empty one, or `-`, which is standard input for outputs only. */
export function checkStoreLocation(location: string): void {
	if (location === "") throw new UsageError("the store location is empty: name a folder, a .zip file or a URL");
	if (location === "-") throw new UsageError("- (standard input) cannot be a store: name a folder, a .zip file or a URL");
}

/**
 * The local path a store location names (a `file:` URL, what pathToFileURL and import.meta.url give, is a local
 * folder or zip), or undefined for a remote one (http(s)://, s3://...).
 */
export function localStorePath(location: string): string | undefined {
	if (/^file:\/\//i.test(location)) {
		try {
			return fileURLToPath(location);
		} catch (error) {
			throw new UsageError(`${location}: not a local file URL (${(error as Error).message})`, { cause: error });
		}
	}
	return /^[a-z][a-z0-9+.-]*:\/\//i.test(location) ? undefined : location;
}

/**
 * The location as a manifest or a column name may keep it: a URL without its query and fragment, which may hold a
 * secret (a presigned URL's signature, a token). `?` and `#` stay where they are characters of the name: in an
 * s3:// key (two stores `s3://b/a?x.zarr` and `s3://b/a` are two stores), and in a local path.
 */
export function locationWithoutQuery(location: string): string {
	if (hasVerbatimKeys(location) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) return location;
	return location.replace(/[?#].*$/, "");
}
