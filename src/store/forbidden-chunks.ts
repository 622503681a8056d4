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

	/**
	 * The first `limit` keys in chunk order (`compareChunkKeys`), for a message: the same keys on every run, though
	 * chunks are read several at a time and answer in any order.
	 */
	firstKeys(limit: number): string[] {
		return firstInChunkOrder(this.#keys, limit);
	}
}

/** The first `limit` of `keys` in chunk order, without sorting them all (a store may have a million such chunks). */
export function firstInChunkOrder(keys: Iterable<string>, limit: number): string[] {
	const first: string[] = [];
	for (const key of keys) {
		if (first.length === limit && (limit === 0 || compareChunkKeys(key, first[limit - 1]!) >= 0)) continue;
		let at = first.length === limit ? limit - 1 : first.length;
		while (at > 0 && compareChunkKeys(key, first[at - 1]!) < 0) {
			first[at] = first[at - 1]!;
			at--;
		}
		first[at] = key;
	}
	return first;
}

/**
 * Chunk keys compared part by part (parts split at `/` and `.`, the separators of v3's and v2's keys), a part of
 * digits by its number: `c/2` before `c/10`, `0.9` before `0.10`, a shard's `c/1/0` after `c/1`. Other parts by code
 * unit, as `<` does, never by locale.
 */
export function compareChunkKeys(a: string, b: string): number {
	const left = a.split(/[/.]/);
	const right = b.split(/[/.]/);
	for (let i = 0; i < Math.min(left.length, right.length); i++) {
		const order = comparePart(left[i]!, right[i]!);
		if (order !== 0) return order;
	}
	return left.length - right.length || (a < b ? -1 : a > b ? 1 : 0);
}

function comparePart(a: string, b: string): number {
	if (a === b) return 0;
	if (DIGITS.test(a) && DIGITS.test(b)) {
		const x = a.replace(LEADING_ZEROS, "");
		const y = b.replace(LEADING_ZEROS, "");
		if (x.length !== y.length) return x.length - y.length;
		if (x !== y) return x < y ? -1 : 1;
	}
	return a < b ? -1 : 1;
}

const DIGITS = /^\d+$/;
const LEADING_ZEROS = /^0+(?=\d)/;
