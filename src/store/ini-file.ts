/**
 * The INI dialect of the AWS CLI's `~/.aws/credentials` and `~/.aws/config`: `[section]` headers, `key = value`
 * lines, `#` and `;` comment lines. An indented line continues the key above (a nested block such as
 * `s3 =\n  addressing_style = path`); those blocks hold nothing read here, so they are skipped.
 */
export type IniSections = ReadonlyMap<string, ReadonlyMap<string, string>>;

export function parseIni(text: string): IniSections {
	const sections = new Map<string, Map<string, string>>();
	let current: Map<string, string> | undefined;
	for (const line of text.split(/\r?\n/)) {
		const trimmed = line.trim();
		if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith(";")) continue;
		if (/^\s/.test(line)) continue;
		const header = /^\[\s*([^\]]*?)\s*\]$/.exec(trimmed);
		if (header !== null) {
			const name = header[1];
			current = sections.get(name) ?? new Map<string, string>();
			sections.set(name, current);
			continue;
		}
		const equals = trimmed.indexOf("=");
		if (equals === -1 || current === undefined) continue;
		current.set(trimmed.slice(0, equals).trim().toLowerCase(), trimmed.slice(equals + 1).trim());
	}
	return sections;
}
