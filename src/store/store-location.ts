import { UsageError } from "../errors.js";

/** Refuses a store location that names nothing: an empty one, or `-`, which is standard input for outputs only. */
export function checkStoreLocation(location: string): void {
	if (location === "") throw new UsageError("the store location is empty: name a folder, a .zip file or a URL");
	if (location === "-") throw new UsageError("- (standard input) cannot be a store: name a folder, a .zip file or a URL");
}
