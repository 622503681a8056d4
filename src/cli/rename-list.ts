import { UsageError } from "../errors.js";

/** Parses `--rename old=new[,old=new]`. */
export function parseRenameList(text: string): Record<string, string> {
	const renames: Record<string, string> = {};
	for (const pair of text.split(",")) {
		const match = /^([^=]+)=([^=]+)$/.exec(pair.trim());
		if (match === null) throw new UsageError(`rename ${JSON.stringify(text)}: write old=new[,old=new], got ${JSON.stringify(pair)}`, { option: "rename", value: text });
		const [from, to] = [match[1].trim(), match[2].trim()];
		if (from in renames) throw new UsageError(`rename: ${JSON.stringify(from)} is renamed twice`, { option: "rename", value: from });
		renames[from] = to;
	}
	return renames;
}
