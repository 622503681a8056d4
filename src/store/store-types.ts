/**
 * The store interface zarrita reads (@zarrita/storage's `AsyncReadable`, structurally the same, so a store of
 * this package is a zarrita store and back). Declared here rather than imported: @zarrita/storage's declarations
 * pull in unzipit's, which do not resolve under `moduleResolution: "NodeNext"`, so every consumer type-checking
 * without `skipLibCheck` would fail on them through this package's declarations.
 */

/** A key inside a store: `/` then the path (`/time/zarr.json`). */
export type AbsolutePath<Rest extends string = string> = `/${Rest}`;

/** Bytes `offset` to `offset + length`, or the last `suffixLength` bytes. */
export type RangeQuery = { offset: number; length: number } | { suffixLength: number };

export interface GetOptions {
	signal?: AbortSignal;
}

export interface AsyncReadable {
	get(key: AbsolutePath, options?: GetOptions): Promise<Uint8Array | undefined>;
	getRange?(key: AbsolutePath, range: RangeQuery, options?: GetOptions): Promise<Uint8Array | undefined>;
}
