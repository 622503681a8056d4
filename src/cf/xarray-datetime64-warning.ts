/**
 * xarray issue 11350: some xarray versions write CF counts into a native numpy.datetime64 array and keep the CF
 * `units`/`calendar` attributes. The data type is what the bytes are, so the array is exported as datetime64; the
 * attributes are the mark of the bug, worth one warning line.
 */
export function datetime64CfAttributesWarning(name: string, attributes: Record<string, unknown>): string | undefined {
	const cf = ["units", "calendar"].filter((key) => attributes[key] !== undefined);
	if (cf.length === 0) return undefined;
	const shown = cf.map((key) => `${key} ${JSON.stringify(attributes[key])}`).join(", ");
	return `warning: ${name} is a numpy.datetime64 array that also carries CF attributes (${shown}), the mark of xarray issue 11350; exported as datetime64, as its data type says (the attributes are ignored)`;
}
