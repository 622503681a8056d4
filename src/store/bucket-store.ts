import type { HttpStore } from "./http-store.js";
import type { ListPrefix } from "./prefix-listing.js";

/** A prefix of an object store bucket, opened: read through `store`, listed through `list`. */
export interface BucketStore {
	readonly kind: "s3" | "gs" | "az";
	/** The objects under the prefix, as a zarrita store (keys relative to the prefix). */
	readonly store: HttpStore;
	/** Lists below the prefix (paths relative to it). */
	readonly list: ListPrefix;
	/** The URL as messages show it (no credentials, no query). */
	readonly location: string;
}
