/**
 * A listing of an object store's prefix (how a group without consolidated metadata shows its members) that did not
 * list: refused, or answered with something that is not a listing. Either is said as such, naming the listing: a
 * refused listing is not refused credentials (the metadata documents read just before, with the same ones, were
 * served), and a page that is not a listing (a captive portal's, a proxy's block page, another service's document)
 * is not a group without members.
 */
import { Dt64ExportError, isDt64ExportError } from "../errors.js";

/** Why listing the members of a group may be refused while its objects are read: said in every such message. */
const LISTING_NOT_ALLOWED =
	"a caller may be allowed to read a bucket's objects but not to list them (S3's s3:ListBucket, GCS's storage.objects.list, an Azure SAS without list permission)";

/** The listing of `listing` (`s3://bucket/prefix/`) was refused; `refusal` is the request's own ACCESS_DENIED. */
export class ListingRefusedError extends Dt64ExportError {
	constructor(
		readonly listing: string,
		readonly refusal: Dt64ExportError,
	) {
		super(
			"ACCESS_DENIED",
			`listing ${listing} was refused: ${refusal.message}; ${LISTING_NOT_ALLOWED}: without a listing, name the array (\`array\`) or the variables (\`columns\`) to export, or give the store consolidated metadata`,
			{ path: refusal.path, cause: refusal },
		);
		this.name = "ListingRefusedError";
	}

	/** For a report that shows what it could read without the listing (inspect): why the members are not shown. */
	get note(): string {
		return `listing ${this.listing} was refused, so only the root group is shown: ${LISTING_NOT_ALLOWED}; name an array to export it, or give the store consolidated metadata`;
	}
}

export function isListingRefused(error: unknown): error is ListingRefusedError {
	return error instanceof ListingRefusedError;
}

/** A listing request's ACCESS_DENIED as the refused listing; any other error as it is. */
export function listingFailure(listing: string, error: unknown): unknown {
	return isDt64ExportError(error) && error.code === "ACCESS_DENIED" && !isListingRefused(error) ? new ListingRefusedError(listing, error) : error;
}

/** How many characters of an answer that is not a listing a message quotes. */
const QUOTED_CHARS = 60;

/** READ_FAILED for a listing answered 200 with something else: what was expected, and how the answer starts. */
export function notAListing(listing: string, path: string, expected: string, bytes: Uint8Array): Dt64ExportError {
	const text = new TextDecoder().decode(bytes.subarray(0, QUOTED_CHARS * 4)).replace(/\s+/g, " ").trim();
	const start = text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text;
	const answer = bytes.length === 0 ? "an empty answer" : `an answer starting ${JSON.stringify(start)}`;
	return new Dt64ExportError(
		"READ_FAILED",
		`listing ${listing}: the service answered 200 with ${answer}, not ${expected}: a proxy's or captive portal's page, or an endpoint of another service?`,
		{ path },
	);
}
