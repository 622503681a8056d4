/**
 * The metadata documents of an opened store (src/store/metadata-documents.ts) against a store that answers when
 * told to: each key read once while kept, a bounded number of reads in flight, started in the order asked for.
 */
import { describe, expect, it } from "vitest";
import { METADATA_READS_IN_FLIGHT, MetadataDocuments } from "../src/store/metadata-documents.js";
import type { AbsolutePath, AsyncReadable } from "../src/store/readable.js";
import { RefusedKeyError } from "../src/store/refused-key.js";

/** A store whose reads wait until the test answers them; it records the order they started in. */
function heldStore() {
	const started: string[] = [];
	const pending = new Map<string, { resolve: (bytes: Uint8Array | undefined) => void; reject: (error: unknown) => void }>();
	let inFlight = 0;
	let maxInFlight = 0;
	const signals = new Map<string, AbortSignal | undefined>();
	const store: AsyncReadable = {
		get: (key: AbsolutePath, options) => {
			started.push(key);
			signals.set(key, options?.signal);
			inFlight++;
			maxInFlight = Math.max(maxInFlight, inFlight);
			return new Promise<Uint8Array | undefined>((resolve, reject) => {
				const done = () => inFlight--;
				pending.set(key, {
					resolve: (bytes) => {
						done();
						resolve(bytes);
					},
					reject: (error) => {
						done();
						reject(error);
					},
				});
			});
		},
	};
	const answer = async (key: string, bytes: Uint8Array | undefined | Error) => {
		const read = pending.get(key)!;
		pending.delete(key);
		if (bytes instanceof Error) read.reject(bytes);
		else read.resolve(bytes);
		await new Promise((resolve) => setImmediate(resolve));
	};
	return { store, started, answer, pending, signals, maxInFlight: () => maxInFlight };
}

const text = (value: string) => new TextEncoder().encode(value);

describe("MetadataDocuments", () => {
	it("reads at most METADATA_READS_IN_FLIGHT keys at once, starting them in the order asked, each key once", async () => {
		const held = heldStore();
		const documents = new MetadataDocuments(held.store);
		const keys = Array.from({ length: 40 }, (_, i) => `/a${String(i).padStart(2, "0")}/zarr.json` as AbsolutePath);
		const reads = keys.map((key) => documents.read(key));
		const again = documents.read(keys[3]);
		await new Promise((resolve) => setImmediate(resolve));
		expect(held.started).toEqual(keys.slice(0, METADATA_READS_IN_FLIGHT));
		// Answered out of order: the next waiting read starts as each one ends, in the order they were asked for.
		for (const key of keys.slice(0, METADATA_READS_IN_FLIGHT).reverse()) await held.answer(key, text(key));
		expect(held.started).toEqual(keys.slice(0, 2 * METADATA_READS_IN_FLIGHT));
		while (held.pending.size > 0) {
			const [key] = held.pending.keys();
			await held.answer(key, text(key));
		}
		expect(held.started).toEqual(keys);
		expect(held.maxInFlight()).toBe(METADATA_READS_IN_FLIGHT);
		expect(await Promise.all(reads)).toEqual(keys);
		expect(await again).toBe(keys[3]);
	});

	it("keeps an absent key and a refusal (403), reads again after another failure, and forgets everything on release", async () => {
		const held = heldStore();
		const documents = new MetadataDocuments(held.store);
		const absent = documents.read("/x/zarr.json");
		const refused = documents.read("/x/.zarray");
		const failed = documents.read("/x/.zgroup");
		await held.answer("/x/zarr.json", undefined);
		await held.answer("/x/.zarray", new RefusedKeyError("403", { key: "x/.zarray" }));
		await held.answer("/x/.zgroup", new Error("connection reset"));
		expect(await absent).toBeUndefined();
		await expect(refused).rejects.toBeInstanceOf(RefusedKeyError);
		await expect(failed).rejects.toThrow("connection reset");
		expect(await documents.read("/x/zarr.json")).toBeUndefined();
		await expect(documents.read("/x/.zarray")).rejects.toBeInstanceOf(RefusedKeyError);
		const retried = documents.read("/x/.zgroup");
		await held.answer("/x/.zgroup", text("{}"));
		expect(await retried).toBe("{}");
		expect(held.started).toEqual(["/x/zarr.json", "/x/.zarray", "/x/.zgroup", "/x/.zgroup"]);
		documents.release();
		const fresh = documents.read("/x/zarr.json");
		await held.answer("/x/zarr.json", text("{}"));
		expect(await fresh).toBe("{}");
		expect(held.started).toHaveLength(5);
	});
	it("readAhead: keys started together, in turn; a failure kept for the first read that asks (no second request), then read again", async () => {
		const held = heldStore();
		const documents = new MetadataDocuments(held.store);
		const keys = ["/zarr.json", "/.zarray", "/.zgroup", "/.zattrs", "/.zmetadata"] as AbsolutePath[];
		documents.readAhead(keys);
		documents.readAhead(keys);
		await new Promise((resolve) => setImmediate(resolve));
		expect(held.started).toEqual(keys);
		await held.answer("/.zgroup", new Error("HTTP 500"));
		await held.answer("/.zmetadata", text("{}"));
		// The failure waited for its reader: it is not read again for it.
		await expect(documents.read("/.zgroup")).rejects.toThrow("HTTP 500");
		expect(await documents.read("/.zmetadata")).toBe("{}");
		expect(held.started).toEqual(keys);
		// Once met, a failure is forgotten as any other read's: the next read asks again.
		await new Promise((resolve) => setImmediate(resolve));
		const again = documents.read("/.zgroup");
		await held.answer("/.zgroup", text('{"zarr_format": 2}'));
		expect(await again).toBe('{"zarr_format": 2}');
		expect(held.started).toEqual([...keys, "/.zgroup"]);
		for (const key of ["/zarr.json", "/.zarray", "/.zattrs"]) await held.answer(key, undefined);
		expect(held.maxInFlight()).toBe(keys.length);
	});

	it("release cancels the reads ahead nobody asked for (a probe the opening did not need), not those asked for", async () => {
		const held = heldStore();
		const documents = new MetadataDocuments(held.store);
		documents.readAhead(["/zarr.json", "/.zmetadata"] as AbsolutePath[]);
		const asked = documents.read("/zarr.json");
		await new Promise((resolve) => setImmediate(resolve));
		documents.release();
		expect(held.signals.get("/.zmetadata")?.aborted).toBe(true);
		expect(held.signals.get("/zarr.json")?.aborted).toBe(false);
		await held.answer("/zarr.json", text("{}"));
		expect(await asked).toBe("{}");
	});

	it("the opening's abort cancels every read ahead in flight, asked for or not", async () => {
		const held = heldStore();
		const opening = new AbortController();
		const documents = new MetadataDocuments(held.store, opening.signal);
		documents.readAhead(["/zarr.json", "/.zmetadata"] as AbsolutePath[]);
		void documents.read("/zarr.json").catch(() => undefined);
		await new Promise((resolve) => setImmediate(resolve));
		opening.abort(new Error("gone"));
		expect(held.signals.get("/zarr.json")?.aborted).toBe(true);
		expect(held.signals.get("/.zmetadata")?.reason).toEqual(new Error("gone"));
	});
});
