/**
 * A bucket whose listings never end (src/store/listing-bounds.ts): a prefix in every prefix, more members than any
 * store holds, empty pages each naming a next one. The walk stops with one line saying how to do without a listing,
 * where it went on for as long as the server liked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Dt64ExportError } from "../src/errors.js";
import { inspectStore } from "../src/inspect.js";
import { MAX_EMPTY_PAGES, MAX_LISTED_DEPTH, MAX_LISTED_MEMBERS } from "../src/store/listing-bounds.js";
import { tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { startS3Server, type S3Server } from "./support/s3-server.js";
import * as fs from "node:fs";
import * as path from "node:path";

const buckets = tempDir("dt64-listing-bounds-");
const home = tempDir("dt64-listing-bounds-home-");
const GROUP = JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {} });
let s3: S3Server;

function listing(prefixes: readonly string[], next: string | undefined): string {
	return [
		`<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`,
		`<KeyCount>${prefixes.length}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>${next !== undefined}</IsTruncated>`,
		...prefixes.map((prefix) => `<CommonPrefixes><Prefix>${prefix}</Prefix></CommonPrefixes>`),
		next === undefined ? "" : `<NextContinuationToken>${next}</NextContinuationToken>`,
		"</ListBucketResult>",
	].join("");
}

let fresh = 0;

beforeAll(async () => {
	for (const bucket of ["deep", "many", "fresh"]) fs.mkdirSync(path.join(buckets, bucket, "g.zarr"), { recursive: true });
	s3 = await startS3Server({
		root: buckets,
		users: {},
		fault: ({ bucket, key, query }) => {
			if (query.get("list-type") === "2") {
				const prefix = query.get("prefix") ?? "";
				// deep: every prefix holds one more, each a group; many: 1,000 members a page, page after page.
				if (bucket === "deep") return { status: 200, body: listing([`${prefix}d/`], undefined) };
				if (bucket === "many") {
					const page = Number(query.get("continuation-token") ?? "0");
					return { status: 200, body: listing(Array.from({ length: 1000 }, (_, i) => `${prefix}m${page}-${i}/`), String(page + 1)) };
				}
				return { status: 200, body: listing([], `token-${fresh++}`) };
			}
			if (key.endsWith("zarr.json") && (bucket === "deep" || key === "g.zarr/zarr.json")) return { status: 200, body: GROUP, headers: { "Content-Type": "application/json" } };
			return undefined;
		},
	});
});
afterAll(async () => {
	await s3.close();
});

const env = () => ({ HOME: home, AWS_ENDPOINT_URL: s3.url, AWS_REGION: "us-east-1" });

async function refusal(bucket: string): Promise<Dt64ExportError> {
	const error = await inspectStore(`s3://${bucket}/g.zarr`, { env: env(), signRequests: false }).then(
		() => undefined,
		(reason: unknown) => reason,
	);
	expect(error).toBeInstanceOf(Dt64ExportError);
	return error as Dt64ExportError;
}

describe("finding a group's nodes by listing a bucket is bounded", () => {
	it(`groups nested more than ${MAX_LISTED_DEPTH} deep: TOO_LARGE, with what to do instead`, async () => {
		// This test's requests only: the CLI run of another test lists the same bucket, before this one in a shuffled order.
		const earlier = s3.requests.length;
		const error = await refusal("deep");
		expect(error.code).toBe("TOO_LARGE");
		expect(error.message).toBe(
			`s3://deep/g.zarr: groups nested more than ${MAX_LISTED_DEPTH} deep found by listing, where stores nest a few: name the array (\`array\`) or the variables (\`columns\`), or give the store consolidated metadata (one request)`,
		);
		const listings = s3.requests.slice(earlier).filter((request) => request.bucket === "deep" && request.query.get("list-type") === "2");
		expect(listings).toHaveLength(MAX_LISTED_DEPTH + 1);
	});

	it(`more than ${MAX_LISTED_MEMBERS} members: TOO_LARGE before their metadata is read`, async () => {
		const error = await refusal("many");
		expect(error.code).toBe("TOO_LARGE");
		expect(error.message).toMatch(new RegExp(`^s3://many/g\\.zarr/?: more than ${MAX_LISTED_MEMBERS} members found by listing the group tree: `));
		// The group's own layout probes go out together (zarr.json and the v2 documents); no member's document is read.
		const probes = new Set(["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"].map((name) => `g.zarr/${name}`));
		expect(s3.requests.filter((request) => request.bucket === "many" && !probes.has(request.key) && request.query.get("list-type") !== "2")).toHaveLength(0);
	});

	it(`more than ${MAX_EMPTY_PAGES} empty pages in a row, each with a new token: READ_FAILED, through the CLI too`, async () => {
		const error = await refusal("fresh");
		expect(error.code).toBe("READ_FAILED");
		expect(error.message).toMatch(new RegExp(`listing s3://fresh/g\\.zarr/: more than ${MAX_EMPTY_PAGES} pages in a row listed nothing, each naming a next page: a listing that does not end`));
		const result = await runCliAsync(["s3://deep/g.zarr", "-o", path.join(home, "d.arrow"), "--no-sign-request"], { env: { ...env(), AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_PROFILE: "" } });
		expect(result.stderr).toMatch(/: name the array \(--array\) or the variables \(--columns\), or give the store consolidated metadata \(one request\) \[TOO_LARGE\]\n$/);
		expect(result.status).toBe(1);
	});
});
