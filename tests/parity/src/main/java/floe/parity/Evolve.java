package floe.parity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.UpdatePartitionSpec;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Schema and partition-spec evolution and partitioned writes for the {@code catalog} command,
 * all through iceberg-java's own APIs.
 *
 * <pre>
 *   "evolve": {"add_columns": {"note": "string"}, "rename": {"name": "label"},
 *              "drop": ["amount"], "promote": {"qty": "long"},
 *              "partition": ["bucket:4:id", "identity:region", "day:ts", "remove:region"]}
 *   "write_files": ["/rows.parquet"]   (field ids of the current schema; written under the
 *                                      current spec with a fanout writer, one newAppend())
 * </pre>
 */
final class Evolve {
  private Evolve() {}

  static void apply(Table table, JsonNode evolve) {
    boolean schemaChanged = false;
    UpdateSchema schema = table.updateSchema();
    Iterator<Map.Entry<String, JsonNode>> adds = evolve.path("add_columns").fields();
    while (adds.hasNext()) {
      Map.Entry<String, JsonNode> add = adds.next();
      schema.addColumn(add.getKey(), Types.fromPrimitiveString(add.getValue().asText()));
      schemaChanged = true;
    }
    Iterator<Map.Entry<String, JsonNode>> renames = evolve.path("rename").fields();
    while (renames.hasNext()) {
      Map.Entry<String, JsonNode> rename = renames.next();
      schema.renameColumn(rename.getKey(), rename.getValue().asText());
      schemaChanged = true;
    }
    Iterator<Map.Entry<String, JsonNode>> promotes = evolve.path("promote").fields();
    while (promotes.hasNext()) {
      Map.Entry<String, JsonNode> promote = promotes.next();
      schema.updateColumn(
          promote.getKey(),
          (org.apache.iceberg.types.Type.PrimitiveType)
              Types.fromPrimitiveString(promote.getValue().asText()));
      schemaChanged = true;
    }
    for (JsonNode drop : evolve.path("drop")) {
      schema.deleteColumn(drop.asText());
      schemaChanged = true;
    }
    if (schemaChanged) schema.commit();
    JsonNode partition = evolve.path("partition");
    if (partition.isArray() && partition.size() > 0) {
      UpdatePartitionSpec spec = table.updateSpec();
      for (JsonNode change : partition) {
        String[] parts = change.asText().split(":");
        switch (parts[0]) {
          case "identity":
            spec.addField(parts[1]);
            break;
          case "bucket":
            spec.addField(Expressions.bucket(parts[2], Integer.parseInt(parts[1])));
            break;
          case "truncate":
            spec.addField(Expressions.truncate(parts[2], Integer.parseInt(parts[1])));
            break;
          case "day":
            spec.addField(Expressions.day(parts[1]));
            break;
          case "remove":
            spec.removeField(parts[1]);
            break;
          default:
            throw new IllegalArgumentException("unknown partition change " + change.asText());
        }
      }
      spec.commit();
    }
    table.refresh();
  }

  static void writeRows(Table table, JsonNode inputFiles) throws Exception {
    Schema schema = table.schema();
    PartitionSpec spec = table.spec();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 7, System.nanoTime())
            .format(FileFormat.PARQUET)
            .operationId("harness-write")
            .build();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .dataSchema(schema)
            .build();
    long target =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    FanoutDataWriter<Record> writer = new FanoutDataWriter<>(writers, files, table.io(), target);
    PartitionKey key = new PartitionKey(spec, schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    ObjectNode request = Harness.MAPPER.createObjectNode();
    request.set("input_files", inputFiles);
    try {
      WriteCommand.forEachInputRow(
          request,
          table.io(),
          schema,
          record -> {
            key.partition(wrapper.wrap(record));
            writer.write(record, spec, key);
          });
    } finally {
      writer.close();
    }
    List<DataFile> written = writer.result().dataFiles();
    AppendFiles append = table.newAppend();
    written.forEach(append::appendFile);
    append.commit();
    table.refresh();
  }
}
