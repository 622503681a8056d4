/**
 * The signer against the worked examples of the AWS documentation ("Signature Calculations for the Authorization
 * Header: Transferring Payload in a Single Chunk", GET Object and GET Bucket (List Objects)): same inputs, the
 * documented signatures.
 */
import { describe, expect, it } from "vitest";
import { amzDate, awsUriEncode, signRequest } from "../src/store/sigv4.js";

const credentials = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const now = new Date("2013-05-24T00:00:00Z");

describe("signRequest", () => {
	it("GET Object with a Range header", () => {
		const headers = new Headers({ Range: "bytes=0-9" });
		signRequest({ method: "GET", url: new URL("https://examplebucket.s3.amazonaws.com/test.txt"), headers, credentials, region: "us-east-1", now });
		expect(headers.get("authorization")).toBe(
			"AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
		);
		expect(headers.get("x-amz-date")).toBe("20130524T000000Z");
	});

	it("GET Bucket with a query string", () => {
		const headers = new Headers();
		signRequest({ method: "GET", url: new URL("https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J"), headers, credentials, region: "us-east-1", now });
		expect(headers.get("authorization")).toMatch(/SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7$/);
	});

	it("signs the session token and every x-amz-* header", () => {
		const headers = new Headers({ "X-Amz-Request-Payer": "requester" });
		signRequest({ method: "HEAD", url: new URL("http://127.0.0.1:9000/b/k"), headers, credentials: { ...credentials, sessionToken: "T" }, region: "eu-west-1", now });
		expect(headers.get("x-amz-security-token")).toBe("T");
		expect(headers.get("authorization")).toContain("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-request-payer;x-amz-security-token,");
	});

	it("encodes as SigV4 wants: only unreserved characters stay", () => {
		expect(awsUriEncode("a b!'()*~._-/é")).toBe("a%20b%21%27%28%29%2A~._-%2F%C3%A9");
		expect(amzDate(new Date("2026-12-03T02:05:09.123Z"))).toBe("20261203T020509Z");
	});
});
