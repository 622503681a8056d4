/**
 * The GCS store's lookup of a token on the metadata server, under a caller's signal that many exports share (a
 * service's shutdown signal): one listener on it however many lookups wait, none once they have settled, as every
 * other wait of the library (onAbort, src/abort.ts). Each lookup followed it through AbortSignal.any, which on Node 20
 * adds no event listener but makes the combined signal a dependant of the caller's (a WeakRef in its
 * kDependantSignals set, one more per store opened, kept until collected): counted here, as Node keeps it.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { openGcsStore } from "../src/store/gcs-store.js";

const LOOKUPS = 12;

/** The signals AbortSignal.any made dependants of `signal` (Node's internal kDependantSignals; none where Node has no such set). */
function dependants(signal: AbortSignal): number {
	const key = Object.getOwnPropertySymbols(signal).find((symbol) => symbol.description === "kDependantSignals");
	return key === undefined ? 0 : ((signal as unknown as Record<symbol, Set<unknown> | undefined>)[key]?.size ?? 0);
}

/** A metadata server's answer to every lookup once all of them are in flight, counting the signal's listeners meanwhile. */
function metadataServer(signal: AbortSignal) {
	const seen: number[] = [];
	const asked: AbortSignal[] = [];
	let answer: () => void = () => undefined;
	const allAsked = new Promise<void>((resolve) => {
		answer = resolve;
	});
	const fetch = (async (_input: unknown, init?: RequestInit) => {
		asked.push(init?.signal as AbortSignal);
		seen.push(getEventListeners(signal, "abort").length);
		if (asked.length === LOOKUPS) answer();
		await allAsked;
		return new Response(JSON.stringify({ access_token: "token" }), { status: 200, headers: { "metadata-flavor": "Google" } });
	}) as typeof globalThis.fetch;
	return { fetch, seen, asked };
}

describe("the GCS metadata server's token, under a shared signal", () => {
	it(`${LOOKUPS} lookups at once put one listener at most on the caller's signal, and nothing of theirs is left on it once they are answered (each was a dependant signal of it, kept)`, async () => {
		const { signal } = new AbortController();
		const server = metadataServer(signal);
		const open = () => openGcsStore({ scheme: "gs", bucket: "data", prefix: "" }, { signRequests: true, env: { GCE_METADATA_HOST: "127.0.0.1:9" }, envOrigin: "the env option", fetch: server.fetch, signal });
		await Promise.all(Array.from({ length: LOOKUPS }, open));
		expect(server.asked).toHaveLength(LOOKUPS);
		expect(Math.max(...server.seen)).toBeLessThanOrEqual(1);
		expect(getEventListeners(signal, "abort")).toEqual([]);
		expect(dependants(signal)).toBe(0);
	});

	it("the caller's abort still cuts the lookup short (an AbortError, not anonymous requests), and the lookup's own wait ends too", async () => {
		const controller = new AbortController();
		let lookup: AbortSignal | undefined;
		const fetch = ((_input: unknown, init?: RequestInit) => {
			lookup = init?.signal as AbortSignal;
			return new Promise<Response>((_resolve, reject) => lookup?.addEventListener("abort", () => reject(lookup?.reason)));
		}) as typeof globalThis.fetch;
		const opening = openGcsStore({ scheme: "gs", bucket: "data", prefix: "" }, { signRequests: true, env: { GCE_METADATA_HOST: "127.0.0.1:9" }, envOrigin: "the env option", fetch, signal: controller.signal });
		await new Promise((resolve) => setImmediate(resolve));
		controller.abort("shutdown");
		expect(await opening.then(() => undefined, (error: unknown) => error)).toMatchObject({ name: "AbortError", code: "ABORT_ERR", cause: "shutdown" });
		expect(lookup?.aborted).toBe(true);
		expect(getEventListeners(controller.signal, "abort")).toEqual([]);
	});

	it("a metadata server that never answers: anonymous requests after the lookup's wait, no listener left", async () => {
		const { signal } = new AbortController();
		const fetch = ((_input: unknown, init?: RequestInit) =>
			new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)))) as typeof globalThis.fetch;
		const store = await openGcsStore({ scheme: "gs", bucket: "data", prefix: "" }, { signRequests: true, env: { GCE_METADATA_HOST: "127.0.0.1:9" }, envOrigin: "the env option", fetch, signal });
		expect(store).toBeDefined();
		expect(getEventListeners(signal, "abort")).toEqual([]);
		expect(dependants(signal)).toBe(0);
	});
});
