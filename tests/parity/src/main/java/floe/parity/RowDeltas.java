package floe.parity;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * The {@code row_delta} of a {@code catalog} request: delete files written by iceberg-java's own
 * writers and committed as one {@code newRowDelta()}.
 *
 * <pre>
 *   "row_delta": {
 *     "position_deletes": [{"file": "/data/file.parquet", "positions": [0, 7]}],
 *     "equality_deletes": {"columns": ["id"], "rows": [{"id": 5}], "partition_of": "/data/f"}
 *   }
 * </pre>
 *
 * Position deletes become one position-delete file per data file in format v2, and deletion
 * vectors (one Puffin file) in v3. Equality deletes go into one file, in the partition of the
 * data file {@code partition_of} names, or unpartitioned.
 *
 * <p>As a merge-on-read operation that read an older snapshot (a race's late writer), with
 * {@code "from_snapshot": id}: the data files are those of that snapshot, {@code
 * "rewrite_previous_deletes": true} removes their file-scoped delete files (the positions
 * given must include theirs), and the commit validates as Spark's SparkPositionDeltaWrite
 * does: from that snapshot, with the conflict filter {@code id IN conflict_ids}, the data
 * files deleted from must exist ({@code "conflict_range": [lo, hi]} instead gives the filter
 * {@code id >= lo AND id <= hi}; neither, alwaysTrue), {@code "command": "update"} or {@code "merge"} adds
 * validateDeletedFiles and validateNoConflictingDeleteFiles, and {@code "isolation":
 * "serializable"} (the default) validateNoConflictingDataFiles.
 */
final class RowDeltas {
  private RowDeltas() {}

  static void commit(Table table, JsonNode request) throws Exception {
    Map<String, FileScanTask> live = new HashMap<>();
    Long from = request.path("from_snapshot").isNumber() ? request.path("from_snapshot").asLong() : null;
    org.apache.iceberg.TableScan scan = table.newScan();
    if (from != null) scan = scan.useSnapshot(from);
    try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
      for (FileScanTask task : tasks) live.put(task.file().location(), task);
    }
    RowDelta delta = table.newRowDelta();
    if (from != null) {
      java.util.Set<CharSequence> referenced = new java.util.HashSet<>();
      for (JsonNode entry : request.path("position_deletes")) {
        FileScanTask task = live.get(dataFile(live, entry.path("file").asText()).location());
        referenced.add(task.file().location());
        if (request.path("rewrite_previous_deletes").asBoolean(false)) {
          for (DeleteFile previous : task.deletes()) {
            if (org.apache.iceberg.util.ContentFileUtil.isFileScoped(previous)) delta.removeDeletes(previous);
          }
        }
      }
      List<Long> ids = new java.util.ArrayList<>();
      for (JsonNode id : request.path("conflict_ids")) ids.add(id.asLong());
      delta.validateFromSnapshot(from);
      org.apache.iceberg.expressions.Expression conflicts =
          ids.isEmpty()
              ? org.apache.iceberg.expressions.Expressions.alwaysTrue()
              : org.apache.iceberg.expressions.Expressions.in("id", ids.toArray());
      JsonNode range = request.path("conflict_range");
      if (range.isArray()) {
        conflicts =
            org.apache.iceberg.expressions.Expressions.and(
                org.apache.iceberg.expressions.Expressions.greaterThanOrEqual("id", range.get(0).asLong()),
                org.apache.iceberg.expressions.Expressions.lessThanOrEqual("id", range.get(1).asLong()));
      }
      delta.conflictDetectionFilter(conflicts);
      delta.validateDataFilesExist(referenced);
      String command = request.path("command").asText("delete");
      if (command.equals("update") || command.equals("merge")) {
        delta.validateDeletedFiles();
        delta.validateNoConflictingDeleteFiles();
      }
      if (request.path("isolation").asText("serializable").equals("serializable")) {
        delta.validateNoConflictingDataFiles();
      }
    }
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, System.nanoTime())
            .format(FileFormat.PARQUET)
            .operationId("harness-delete")
            .build();
    JsonNode positions = request.path("position_deletes");
    if (positions.isArray() && positions.size() > 0) {
      if (TableUtil.formatVersion(table) >= 3) {
        OutputFileFactory puffin =
            OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PUFFIN)
                .operationId("harness-dv")
                .build();
        BaseDVFileWriter writer = new BaseDVFileWriter(puffin, path -> null);
        try (BaseDVFileWriter closing = writer) {
          for (JsonNode entry : positions) {
            DataFile file = dataFile(live, entry.path("file").asText());
            for (JsonNode pos : entry.path("positions")) {
              closing.delete(file.location(), pos.asLong(), table.specs().get(file.specId()), file.partition());
            }
          }
        }
        for (DeleteFile deletes : writer.result().deleteFiles()) delta.addDeletes(deletes);
      } else {
        GenericFileWriterFactory factory =
            new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
        for (JsonNode entry : positions) {
          DataFile file = dataFile(live, entry.path("file").asText());
          PartitionSpec spec = table.specs().get(file.specId());
          PositionDeleteWriter<Record> writer =
              factory.newPositionDeleteWriter(
                  files.newOutputFile(spec, file.partition()), spec, file.partition());
          try (PositionDeleteWriter<Record> closing = writer) {
            PositionDelete<Record> delete = PositionDelete.create();
            for (JsonNode pos : entry.path("positions")) {
              closing.write(delete.set(file.location(), pos.asLong(), null));
            }
          }
          delta.addDeletes(writer.toDeleteFile());
        }
      }
    }
    JsonNode equality = request.path("equality_deletes");
    if (equality.isObject()) {
      List<String> columns = new java.util.ArrayList<>();
      for (JsonNode column : equality.path("columns")) columns.add(column.asText());
      Schema deleteSchema = table.schema().select(columns);
      int[] ids = new int[columns.size()];
      for (int i = 0; i < columns.size(); i++) ids[i] = table.schema().findField(columns.get(i)).fieldId();
      GenericFileWriterFactory factory =
          new GenericFileWriterFactory.Builder(table)
              .deleteFileFormat(FileFormat.PARQUET)
              .equalityFieldIds(ids)
              .equalityDeleteRowSchema(deleteSchema)
              .build();
      PartitionSpec spec = table.spec();
      StructLike partition = null;
      if (equality.hasNonNull("partition_of")) {
        DataFile file = dataFile(live, equality.path("partition_of").asText());
        spec = table.specs().get(file.specId());
        partition = file.partition();
      } else if (spec.isPartitioned()) {
        throw new IllegalArgumentException("equality_deletes on a partitioned table need partition_of");
      }
      EqualityDeleteWriter<Record> writer =
          factory.newEqualityDeleteWriter(files.newOutputFile(spec, partition), spec, partition);
      try (EqualityDeleteWriter<Record> closing = writer) {
        for (JsonNode row : equality.path("rows")) {
          GenericRecord record = GenericRecord.create(deleteSchema);
          Iterator<Map.Entry<String, JsonNode>> fields = row.fields();
          while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            record.setField(field.getKey(), value(deleteSchema.findField(field.getKey()), field.getValue()));
          }
          closing.write(record);
        }
      }
      delta.addDeletes(writer.toDeleteFile());
    }
    delta.commit();
    table.refresh();
  }

  private static DataFile dataFile(Map<String, FileScanTask> live, String path) {
    FileScanTask task = live.get(path);
    if (task == null) task = live.get("file:" + path);
    if (task == null && path.startsWith("file:")) task = live.get(path.substring(5));
    if (task == null) throw new IllegalArgumentException("no live data file " + path);
    return task.file();
  }

  private static Object value(Types.NestedField field, JsonNode json) {
    if (json.isNull()) return null;
    switch (field.type().typeId()) {
      case INTEGER:
        return json.asInt();
      case LONG:
        return json.asLong();
      case DOUBLE:
        return json.asDouble();
      case FLOAT:
        return (float) json.asDouble();
      case BOOLEAN:
        return json.asBoolean();
      case STRING:
        return json.asText();
      case DATE:
        return java.time.LocalDate.parse(json.asText());
      default:
        throw new IllegalArgumentException("equality delete values of type " + field.type() + " are not supported here");
    }
  }
}
