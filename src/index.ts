// The public API: the table export (a single array is a one-column table), openTimeArray as a convenience,
// inspectStore, the stages to pipe oneself, the exact conversion core, the CF time core, and the errors. Everything
// else is internal.
// First, in this order: apache-arrow evaluated between the two modules that take back the globals it adds (tslib's).
import "./arrow/globals-before-arrow.js";
import "apache-arrow";
import "./arrow/globals-after-arrow.js";
export { Dt64ExportError, UsageError, isDt64ExportError, ERROR_CODES, type ErrorCode, type ErrorKind, type ErrorFields } from "./errors.js";
export { OUTPUT_FORMATS, type ExportOptions, type OutputFormat } from "./export-plan.js";
export { createTableExportStages, exportTable, exportToFile, type ExportStages, type FileExport, type TableExport } from "./export.js";
export type { StrayTemporaryFile } from "./output/atomic-file.js";
export { openTable, tableOfTimeArray, type ZarrTable, type TableColumn, type TableIndex, type IndexSource, type OpenTableOptions } from "./open-table.js";
export type { RefusedNode } from "./store/refused-nodes.js";
export { openTimeArray, type TimeArray, type OpenArrayOptions } from "./open-array.js";
export { inspectStore, formatInspectReport, inspectReportToJson, type InspectOptions, type InspectReport, type InspectNode, type InspectTextOptions, type CfPackingReport } from "./inspect.js";
export { TableReader, type RowOrder, type TableBand, type TableReaderOptions } from "./stream/table-reader.js";
export { TableBatcher, type TableBatcherOptions } from "./stream/table-batcher.js";
export { IpcWriter, type IpcFormat } from "./stream/ipc-writer.js";
export { ParquetWriter, createParquetWriter } from "./stream/parquet/parquet-writer.js";
export type { ParquetWriterOptions, ParquetCompression } from "./stream/parquet/options.js";
export { toArrowTimestamps, ConversionError, type TimestampValues, type ConvertOptions } from "./convert/to-arrow-timestamps.js";
export { parseDatetime64Type, formatDatetime64Type, type Datetime64Type, type TimeKind } from "./dtype/datetime64.js";
export type { TargetUnit } from "./dtype/units.js";
export type { ConversionOptions, TargetUnitOption, OverflowPolicy, Rounding } from "./convert/options.js";
export { parseCfTimeCoding, type CfTimeCoding } from "./cf/cf-time-coding.js";
export { decodeCfTimes, CfDecodeError, type CfDecodeOptions } from "./cf/decode-cf-times.js";
export type { MissingValueMarkers } from "./cf/missing-value.js";
export { cfMarkersOf as cfMissingValueMarkers, isMarkedMissing as isMissingValue, type CfMarkersSource } from "./cf/cf-markers-api.js";
export type { CfOptions } from "./cf/cf-time-array.js";
export type { CalendarAlignment } from "./cf/calendar-alignment.js";
export { exportDataset, exportSelection, type DatasetExportSummary, type SelectionSummary } from "./export-selection.js";
export { commitDataset, type CommitSummary } from "./output/commit.js";
export type { SelectionOptions, DatasetOptions } from "./select/selection-options.js";
export type { PartitionLevel } from "./output/hive-partition.js";
export type { Part } from "./select/part.js";
