export { Dt64ExportError, UsageError, isDt64ExportError, ERROR_CODES, type ErrorCode, type ErrorKind, type ErrorFields } from "./errors.js";
export { parseDatetime64Type, formatDatetime64Type, type Datetime64Type, type TimeKind } from "./dtype/datetime64.js";
export { parseFillValue, NAT } from "./dtype/fill-value.js";
export { parseNumpyTimeDtype, type NumpyTimeDtype } from "./dtype/numpy-dtype-string.js";
export { rawMemberText } from "./json/raw-member.js";
export { DATETIME_UNITS, TARGET_UNITS, AUTO_TARGET_UNIT, type DatetimeUnit, type TargetUnit } from "./dtype/units.js";
export { toArrowTimestamps, ConversionError, type TimestampValues, type ConvertOptions } from "./convert/to-arrow-timestamps.js";
export { normalizeConversionOptions, type ConversionOptions, type TargetUnitOption, type OverflowPolicy } from "./convert/options.js";
export { arrowTimeField, arrowTimeType, arrowTimeData, ZARR_DATA_TYPE_KEY } from "./arrow/time-field.js";
export { openTimeArray, type TimeArray, type OpenArrayOptions } from "./open-array.js";
export { ChunkReader, type ValueBand, type ChunkReaderOptions } from "./stream/chunk-reader.js";
export { TimestampBatcher, type TimestampBatcherOptions } from "./stream/timestamp-batcher.js";
export { IpcWriter, type IpcFormat } from "./stream/ipc-writer.js";
export { ParquetWriter, createParquetWriter, type ParquetWriterOptions, type ParquetCompression } from "./stream/parquet-writer.js";
export { AtomicFileWriter } from "./output/atomic-file.js";
export { createExportStages, exportArray, type ExportOptions, type ExportStages, type OutputFormat } from "./export.js";
export {
	createTableExportStages,
	exportTable,
	openExportTable,
	checkTableOptions,
	type TableExportOptions,
	type TableExportStages,
} from "./export.js";
export { openTable, tableOfTimeArray, parseColumnList, type ZarrTable, type TableColumn, type OpenTableOptions } from "./open-table.js";
export { TableReader, ROW_ORDERS, type RowOrder, type TableBand, type TableReaderOptions } from "./stream/table-reader.js";
export { TableBatcher, type TableBatcherOptions, type TableColumnPlan } from "./stream/table-batcher.js";
export { rowIndexColumns, rowPosition, type RowRegion } from "./table/row-index.js";
export { plainArrowField, plainArrowData } from "./arrow/column-types.js";
export { parsePlainDataType, parsePlainFillValue, type PlainDataType, type PlainFill, type PlainTypeName } from "./zarr/plain-dtype.js";
export type { ChunkValues } from "./zarr/chunk-values.js";
export { parseCfTimeCoding, cfTimeKindOf, describeCfTimeCoding, type CfTimeCoding, type CfTimeCodingOptions } from "./cf/cf-time-coding.js";
export { decodeCfTimes, CfDecodeError, type CfDecodeOptions } from "./cf/decode-cf-times.js";
export { cfMissingValueMarkers, isMissingValue, type MissingValueMarkers, type MissingValueSource } from "./cf/missing-value.js";
export { isCfTimeArray, type CfOptions } from "./cf/cf-time-array.js";
export { openExportSource } from "./export-setup.js";
