/**
 * The chunk (and shard) keys of one opened store that S3 answered 403 AccessDenied and that were read as missing,
 * the fill value, because the export was told that its missing chunks answer so (`forbiddenAsMissing`). The 403
 * cannot tell a chunk never written from one the caller may not read (a KMS key, a bucket policy), so the count is
 * the export's to report: a job can tell "no chunk" from "half the store".
 */
/** The keys a warning names, and a part's manifest records for commit's. */
export const KEYS_NAMED = 3;

export class ForbiddenChunks {
	readonly #keys = new Set<string>();

	/** `key`: the store key, without its leading `/`. A key read twice (a time search, then the export) counts once. */
	add(key: string): void {
		this.#keys.add(key);
	}

	get count(): number {
		return this.#keys.size;
	}

	/** The first keys met, in the order met, for a message. */
	firstKeys(limit: number): string[] {
		const keys: string[] = [];
		for (const key of this.#keys) {
			if (keys.length === limit) break;
			keys.push(key);
		}
		return keys;
	}
}
