import * as fs from "node:fs";

/**
 * The signatures a zip file starts with: a local file header (`PK\x03\x04`, the first entry), or for a zip of no
 * entries the end of central directory record (`PK\x05\x06`), which is then all the file holds.
 */
const ZIP_STARTS = [Buffer.from("PK\x03\x04", "latin1"), Buffer.from("PK\x05\x06", "latin1")];

/**
 * Whether a local regular file starts as a zip file does: a store zipped under another name than `.zip`
 * (`store.bin`, a download's temporary name, a link without the extension) is read as the zip it is.
 */
export async function startsAsZip(file: string): Promise<boolean> {
	const handle = await fs.promises.open(file, "r");
	try {
		const start = Buffer.alloc(4);
		const { bytesRead } = await handle.read(start, 0, start.length, 0);
		return bytesRead === start.length && ZIP_STARTS.some((signature) => signature.equals(start));
	} finally {
		await handle.close();
	}
}
