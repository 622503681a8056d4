/**
 * Just enough XML for the listing documents of S3 and Azure Blob (flat elements holding text): their schemas are
 * fixed and small, and a general XML parser would be a dependency for a dozen lines.
 */

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** The text of an element with entity and character references resolved, CDATA kept as is. */
function xmlText(inner: string): string {
	return inner.replace(/<!\[CDATA\[([\s\S]*?)\]\]>|&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, cdata: string | undefined, ref: string | undefined) => {
		if (cdata !== undefined) return cdata;
		if (ref!.startsWith("#x")) return String.fromCodePoint(Number.parseInt(ref!.slice(2), 16));
		if (ref!.startsWith("#")) return String.fromCodePoint(Number.parseInt(ref!.slice(1), 10));
		return ENTITIES[ref!] ?? whole;
	});
}

/** The raw contents of every `<name>…</name>` in `xml` (elements of that name are not nested in these documents). */
export function xmlElements(xml: string, name: string): string[] {
	const pattern = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>|<${name}(?:\\s[^>]*)?/>`, "g");
	return [...xml.matchAll(pattern)].map((match) => match[1] ?? "");
}

/** The text of the first `<name>` element, or undefined. */
export function xmlFirst(xml: string, name: string): string | undefined {
	const [first] = xmlElements(xml, name);
	return first === undefined ? undefined : xmlText(first);
}
