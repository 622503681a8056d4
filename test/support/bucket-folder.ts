/**
 * A folder as a bucket, for the servers standing in for S3, Google Cloud Storage and Azure Blob: every file below
 * it is an object whose key is its path (`a/b/c`), and a listing is the keys under a prefix with those past the
 * delimiter folded into common prefixes, as the three services list them.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";

export interface ListEntry {
	/** A key, or a common prefix (ending with the delimiter). */
	readonly name: string;
	readonly isPrefix: boolean;
}

/** Every key of the bucket, sorted as the services list them (by UTF-16 code unit). */
export async function bucketKeys(folder: string): Promise<string[]> {
	const keys: string[] = [];
	for (const entry of await readdir(folder, { withFileTypes: true })) {
		if (entry.isDirectory()) keys.push(...(await bucketKeys(path.join(folder, entry.name))).map((key) => `${entry.name}/${key}`));
		else keys.push(entry.name);
	}
	return keys.sort();
}

/** The listing of sorted `keys` under `prefix`: each key, or its common prefix where `delimiter` follows the prefix (once), in key order. */
export function listEntries(keys: readonly string[], prefix: string, delimiter: string): ListEntry[] {
	const entries: ListEntry[] = [];
	for (const key of keys) {
		if (!key.startsWith(prefix)) continue;
		const cut = delimiter === "" ? -1 : key.indexOf(delimiter, prefix.length);
		const name = cut === -1 ? key : key.slice(0, cut + delimiter.length);
		// Sorted keys give their common prefixes in order too: a repeated one follows the one before it.
		if (entries.at(-1)?.name !== name) entries.push({ name, isPrefix: cut !== -1 });
	}
	return entries;
}
