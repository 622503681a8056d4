/**
 * An object store endpoint that redirects (a load balancer sending http to https, a gateway that moved, S3's 307
 * TemporaryRedirect): a request with credentials is not followed to another address (a SigV4 signature covers its
 * host, and fetch drops Authorization across origins, so the redirected request went unsigned and its refusal was
 * blamed on the credentials). The error names the redirect and where it points.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { startS3Server, type S3Server } from "./support/s3-server.js";

const KEY_ID = "AKIDREDIRECTEXAMPLE1";
const SECRET = "redirect-secret";
const buckets = tempDir("dt64-redirect-");
let moved: S3Server;
let redirecting: S3Server;

beforeAll(async () => {
	await writeArray(path.join(buckets, "data", "t.zarr"), "", { shape: [4], chunks: [2], dataType: { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } }, values: BigInt64Array.from([1n, 2n, 3n, 4n]), codecs: [{ name: "bytes", configuration: { endian: "little" } }] });
	moved = await startS3Server({ root: buckets, users: { [KEY_ID]: { secret: SECRET } } });
	redirecting = await startS3Server({
		root: buckets,
		users: { [KEY_ID]: { secret: SECRET } },
		fault: (request) => ({ status: 307, code: "TemporaryRedirect", message: "Please re-send this request to the specified temporary endpoint.", headers: { Location: `${moved.url}/${request.bucket}/${request.key}` } }),
	});
});
afterAll(async () => {
	await moved.close();
	await redirecting.close();
});

describe("an S3 endpoint that redirects every request", () => {
	it("is not followed: READ_FAILED naming the redirect, where it points and the endpoint to set, never refused credentials", async () => {
		const out = path.join(buckets, "t.arrow");
		const env = { AWS_ENDPOINT_URL: redirecting.url, AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET, HOME: buckets, AWS_PROFILE: "", AWS_SESSION_TOKEN: "", AWS_CONFIG_FILE: "", AWS_SHARED_CREDENTIALS_FILE: "" };
		const result = await runCliAsync(["s3://data/t.zarr", "-o", out], { env });
		expect(result.status).toBe(1);
		expect(result.stderr).toBe(
			`dt64-export: GET ${redirecting.url}/data/t.zarr/zarr.json failed: HTTP 307 Temporary Redirect to ${moved.url}/data/t.zarr/zarr.json, not followed: a request with credentials is not sent on to another address (TemporaryRedirect; S3 says: "Please re-send this request to the specified temporary endpoint."); a signature covers its host: if the endpoint moved there, set AWS_ENDPOINT_URL=${moved.url} [READ_FAILED]\n`,
		);
		expect(moved.requests).toEqual([]);
		expect(fs.existsSync(out)).toBe(false);
		// Set as it says, the export reads the store.
		const there = await runCliAsync(["s3://data/t.zarr", "-o", out, "-q"], { env: { ...env, AWS_ENDPOINT_URL: moved.url } });
		expect(there.stderr).toBe("");
		expect(there.status).toBe(0);
	});
});
