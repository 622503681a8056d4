/**
 * Requests through the HTTP proxy the environment names (trial 20, finding 06): a machine whose only way out is a
 * proxy reads its buckets as curl, boto3 and the AWS CLI do (`HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`, lower case
 * first), each proxied request given its own dispatcher: the process's global dispatcher is left as Node set it.
 * The endpoint's host exists only for the proxy here (`.test` never resolves), as a private endpoint behind an
 * egress proxy does.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { readRawInt64, REPO, tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { startS3Server, type S3Server } from "./support/s3-server.js";
import { proxiesOf } from "../src/store/proxy-fetch.js";

const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
const KEY_ID = "AKIDPROXYEXAMPLE0001";
const SECRET = "proxy-secret";
const HIDDEN_HOST = "s3.behind-proxy.test";
const VALUES = BigInt64Array.from({ length: 300 }, (_, i) => 1_600_000_000n + BigInt(i) * 60n);

const buckets = tempDir("dt64-proxy-");
const work = tempDir("dt64-proxy-out-");
const home = tempDir("dt64-proxy-home-");
let s3: S3Server;
let proxy: http.Server;
let proxyUrl: string;
/** What the proxy was asked: absolute-form request targets. */
const asked: string[] = [];

beforeAll(async () => {
	await writeArray(path.join(buckets, "data", "t.zarr"), "", { shape: [300], chunks: [100], dataType: seconds, values: VALUES, codecs: [LE] });
	s3 = await startS3Server({ root: buckets, users: { [KEY_ID]: { secret: SECRET } } });
	const s3Port = new URL(s3.url).port;
	// A forward proxy that knows the hidden host: it sends each absolute-form request on, Host header unchanged (the
	// signature covers it).
	proxy = http.createServer((request, response) => {
		asked.push(`${request.method} ${request.url}`);
		const target = new URL(request.url!);
		if (target.hostname !== HIDDEN_HOST) {
			response.writeHead(502).end();
			return;
		}
		const onward = http.request({ host: "127.0.0.1", port: s3Port, method: request.method, path: `${target.pathname}${target.search}`, headers: request.headers }, (answer) => {
			response.writeHead(answer.statusCode!, answer.headers);
			answer.pipe(response);
		});
		onward.on("error", () => response.destroy());
		request.pipe(onward);
	});
	await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
	proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
	await s3.close();
	proxy.closeAllConnections();
	await new Promise((resolve) => proxy.close(resolve));
});

const PROXY_VARIABLES = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"];

/** Only these settings, none of the machine's: the endpoint is the hidden host. */
function env(extra: Record<string, string> = {}): Record<string, string> {
	const blank = ["AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL_S3", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", ...PROXY_VARIABLES];
	return { ...Object.fromEntries(blank.map((name) => [name, ""])), HOME: home, AWS_ENDPOINT_URL: `http://${HIDDEN_HOST}:${new URL(s3.url).port}`, AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET, ...extra };
}

let counter = 0;
const outFile = () => path.join(work, `out${counter++}.arrow`);

describe("HTTP proxies named by the environment (trial 20, finding 06)", () => {
	it("HTTP_PROXY: every request of an s3:// export goes through the proxy, signed for the endpoint", async () => {
		asked.length = 0;
		// This test's requests only: the next test exports the same store four times, before this one in a shuffled order.
		const earlier = s3.requests.length;
		const out = outFile();
		const run = await runCliAsync(["s3://data/t.zarr", "-o", out, "-q"], { env: env({ HTTP_PROXY: proxyUrl }) });
		expect(run.stderr).toBe("");
		expect(run.status).toBe(0);
		expect(readRawInt64(out)).toEqual(Array.from(VALUES));
		expect(asked).toContain(`GET http://${HIDDEN_HOST}:${new URL(s3.url).port}/data/t.zarr/c/2`);
		expect(s3.requests.slice(earlier).filter((request) => request.user === KEY_ID && request.key === "t.zarr/c/2")).toHaveLength(1);
	});

	it("the lower-case variable wins; NO_PROXY's hosts are reached directly; HTTPS_PROXY alone leaves http:// URLs direct", async () => {
		asked.length = 0;
		const lower = await runCliAsync(["s3://data/t.zarr", "-o", outFile(), "-q"], { env: env({ http_proxy: proxyUrl, HTTP_PROXY: "http://127.0.0.1:1" }) });
		expect(lower.status, lower.stderr).toBe(0);
		expect(asked.length).toBeGreaterThan(0);
		asked.length = 0;
		const direct = { AWS_ENDPOINT_URL: s3.url };
		for (const extra of [{ HTTP_PROXY: proxyUrl, NO_PROXY: "localhost,127.0.0.1" }, { HTTP_PROXY: proxyUrl, no_proxy: "*" }, { HTTPS_PROXY: proxyUrl }]) {
			const run = await runCliAsync(["s3://data/t.zarr", "-o", outFile(), "-q"], { env: env({ ...direct, ...extra }) });
			expect(run.status, `${JSON.stringify(extra)}: ${run.stderr}`).toBe(0);
		}
		expect(asked).toEqual([]);
	});

	it("a proxy that cannot be reached is named in the error, with its variable", async () => {
		const run = await runCliAsync(["s3://data/t.zarr", "-o", outFile(), "--retries", "0"], { env: env({ HTTP_PROXY: "http://127.0.0.1:1" }) });
		expect(run.status).toBe(1);
		expect(run.stderr).toMatch(/failed after 1 attempt: connection refused \(ECONNREFUSED\) through the proxy http:\/\/127\.0\.0\.1:1 \(HTTP_PROXY\) \[READ_FAILED\]\n$/);
	});

	it("a proxy of a scheme it cannot speak is refused by name; credentials in a proxy URL are never shown", () => {
		expect(() => proxiesOf({ HTTPS_PROXY: "socks5://127.0.0.1:1080" })).toThrow(expect.objectContaining({ code: "USAGE", message: "HTTPS_PROXY names a socks5 proxy: only http:// and https:// proxies are supported" }));
		expect(proxiesOf({})).toBeUndefined();
		const proxies = proxiesOf({ HTTP_PROXY: "user:secret@proxy.example:3128", NO_PROXY: ".internal.example, db:5432" })!;
		expect(proxies.routeOf(new URL("http://s3.example/b"))).toEqual({ uri: "http://user:secret@proxy.example:3128/", shown: "http://proxy.example:3128", variable: "HTTP_PROXY" });
		expect(proxies.routeOf(new URL("http://a.internal.example/b"))).toBeUndefined();
		expect(proxies.routeOf(new URL("http://internal.example/b"))).toBeUndefined();
		expect(proxies.routeOf(new URL("http://db:5432/"))).toBeUndefined();
		expect(proxies.routeOf(new URL("http://db:80/"))).toBeDefined();
		expect(proxies.routeOf(new URL("https://s3.example/b"))).toBeUndefined();
	});

	it("the library's env option names the proxy per call, and the process's global dispatcher stays Node's own", async () => {
		// A child process (not waited for synchronously: the proxy answers from this one): the global dispatcher is
		// set once per process.
		const script = `
			import { proxiesOf } from ${JSON.stringify(path.join(REPO, "dist/store/proxy-fetch.js"))};
			import { exportToFile } from ${JSON.stringify(path.join(REPO, "dist/index.js"))};
			const key = Symbol.for("undici.globalDispatcher.1");
			const env = ${JSON.stringify(env({ HTTP_PROXY: proxyUrl }))};
			// A proxied request before any other of the process: undici is loaded first thing.
			await proxiesOf(env).fetch(env.AWS_ENDPOINT_URL + "/data/t.zarr/zarr.json");
			await exportToFile("s3://data/t.zarr", process.argv[1], { env });
			const { Agent } = await import(${JSON.stringify(path.join(REPO, "node_modules/undici/index.js"))});
			console.log(JSON.stringify({ ours: globalThis[key] instanceof Agent, newer: Symbol.for("undici.globalDispatcher.2") in globalThis }));
		`;
		const out = outFile();
		const child = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script, out], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } });
		expect(child.stderr).toBe("");
		expect(JSON.parse(child.stdout)).toEqual({ ours: false, newer: false });
		expect(readRawInt64(out)).toEqual(Array.from(VALUES));
		expect(fs.existsSync(out)).toBe(true);
	});
});
