/**
 * The INI dialect of the AWS CLI's `~/.aws/credentials` and `~/.aws/config`: `[section]` headers, `key = value`
 * lines, `#` and `;` comment lines. An indented `key = value` line under a key with no value belongs to that key's
 * nested block (`s3 =\n  endpoint_url = http://localhost:9000`, as a `[services name]` section writes a service's
 * settings); it is kept as `parent.key` (`s3.endpoint_url`), which no top-level key can be spelt as.
 */
export type IniSections = ReadonlyMap<string, ReadonlyMap<string, string>>;

export function parseIni(text: string): IniSections {
	const sections = new Map<string, Map<string, string>>();
	let current: Map<string, string> | undefined;
	/** The key of the nested block being read: the last top-level key, when it had no value. */
	let block: string | undefined;
	for (const line of text.split(/\r?\n/)) {
		const trimmed = line.trim();
		if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith(";")) continue;
		const equals = trimmed.indexOf("=");
		if (/^\s/.test(line)) {
			if (block !== undefined && equals !== -1 && current !== undefined) {
				current.set(`${block}.${trimmed.slice(0, equals).trim().toLowerCase()}`, trimmed.slice(equals + 1).trim());
			}
			continue;
		}
		block = undefined;
		const header = /^\[\s*([^\]]*?)\s*\]$/.exec(trimmed);
		if (header !== null) {
			const name = header[1];
			current = sections.get(name) ?? new Map<string, string>();
			sections.set(name, current);
			continue;
		}
		if (equals === -1 || current === undefined) continue;
		const key = trimmed.slice(0, equals).trim().toLowerCase();
		const value = trimmed.slice(equals + 1).trim();
		current.set(key, value);
		if (value === "") block = key;
	}
	return sections;
}
