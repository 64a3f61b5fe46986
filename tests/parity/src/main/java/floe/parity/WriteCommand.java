package floe.parity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Accessor;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortField;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.ClusteredDataWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitioningWriter;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.SortOrderUtil;

/**
 * {@code write}: create a table with exactly the requested metadata and write rows through
 * iceberg-java's writer stack the way Spark's SparkWrite does.
 */
final class WriteCommand {
  private WriteCommand() {}

  static JsonNode run(JsonNode req) throws IOException {
    String location = requiredText(req, "table_location");
    while (location.endsWith("/") && location.length() > 1) {
      location = location.substring(0, location.length() - 1);
    }
    if (Files.exists(LocalFileIO.toPath(location))) {
      throw new IllegalArgumentException("table_location already exists: " + location);
    }
    int formatVersion = req.path("format_version").asInt(2);
    String mode = requiredText(req, "mode");
    if (!mode.equals("unpartitioned") && !mode.equals("clustered") && !mode.equals("fanout")) {
      throw new IllegalArgumentException("mode must be unpartitioned, clustered or fanout: " + mode);
    }
    int partitionId = req.path("partition_id").asInt(0);
    long taskId = req.path("task_id").asLong(0);
    String operationId = req.path("operation_id").asText("parity");

    // ---- table metadata, keeping the request's ids ----
    Schema schema = SchemaParser.fromJson(required(req, "schema"));
    JsonNode specNode = req.get("partition_spec");
    PartitionSpec spec =
        specNode == null || specNode.isNull()
            ? PartitionSpec.unpartitioned()
            : PartitionSpecParser.fromJson(schema, specNode);
    JsonNode orderNode = req.get("sort_order");
    SortOrder sortOrder =
        orderNode == null || orderNode.isNull()
            ? SortOrder.unsorted()
            : SortOrderParser.fromJson(schema, orderNode);
    Map<String, String> properties = new LinkedHashMap<>();
    JsonNode props = req.get("properties");
    if (props != null && !props.isNull()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (TableProperties.RESERVED_PROPERTIES.contains(e.getKey())) {
          throw new IllegalArgumentException(
              "reserved table property in request (use format_version etc.): " + e.getKey());
        }
        properties.put(e.getKey(), e.getValue().isTextual() ? e.getValue().textValue() : e.getValue().toString());
      }
    }

    // buildFromEmpty() keeps column ids (newTableMetadata() would reassign them) and does not add
    // the implicit catalog default write.parquet.compression-codec=zstd.
    TableMetadata metadata =
        TableMetadata.buildFromEmpty(formatVersion)
            .setLocation(location)
            .setCurrentSchema(schema, Math.max(0, schema.highestFieldId()))
            .setDefaultPartitionSpec(spec)
            .setDefaultSortOrder(sortOrder)
            .setProperties(properties)
            .build();
    verifyIds(schema, spec, sortOrder, metadata);

    FileIO io = new LocalFileIO();
    LocalTableOperations ops = LocalTableOperations.create(io, metadata);
    Table table = new BaseTable(ops, location);
    Schema tableSchema = table.schema();
    PartitionSpec tableSpec = table.spec();

    // ---- writer stack (mirrors spark's SparkWrite.WriterFactory#createWriter) ----
    OutputFileFactory fileFactory =
        OutputFileFactory.builderFor(table, partitionId, taskId)
            .format(FileFormat.PARQUET)
            .operationId(operationId)
            .build();
    GenericFileWriterFactory writerFactory =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .dataSchema(tableSchema)
            .dataSortOrder(table.sortOrder())
            .build();
    long targetFileSize =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);

    List<DataFile> dataFiles;
    if (tableSpec.isUnpartitioned()) {
      // like SparkWrite.UnpartitionedDataWriter (used for any unpartitioned spec)
      RollingDataWriter<Record> writer =
          new RollingDataWriter<>(writerFactory, fileFactory, io, targetFileSize, tableSpec, null);
      try {
        forEachRowInWriteOrder(req, io, tableSchema, table, writer::write);
      } finally {
        writer.close();
      }
      dataFiles = writer.result().dataFiles();
    } else {
      if (mode.equals("unpartitioned")) {
        throw new IllegalArgumentException("mode unpartitioned requires an unpartitioned spec");
      }
      boolean fanout = mode.equals("fanout");
      PartitioningWriter<Record, DataWriteResult> writer =
          fanout
              ? new FanoutDataWriter<>(writerFactory, fileFactory, io, targetFileSize)
              : new ClusteredDataWriter<>(writerFactory, fileFactory, io, targetFileSize);
      PartitionKey key = new PartitionKey(tableSpec, tableSchema);
      InternalRecordWrapper wrapper = new InternalRecordWrapper(tableSchema.asStruct());
      try {
        forEachRowInWriteOrder(
            req,
            io,
            tableSchema,
            table,
            record -> {
              key.partition(wrapper.wrap(record));
              try {
                writer.write(record, tableSpec, key);
              } catch (IllegalStateException e) {
                if (!fanout) {
                  throw new Harness.HarnessExit(3, e.getMessage());
                }
                throw e;
              }
            });
      } finally {
        writer.close();
      }
      dataFiles = writer.result().dataFiles();
    }

    AppendFiles append = table.newAppend();
    dataFiles.forEach(append::appendFile);
    append.commit();

    String metadataLocation = ops.current().metadataFileLocation();
    ObjectNode out = DumpCommand.dump(metadataLocation, req.path("rows").asBoolean(false));
    ObjectNode result = Harness.MAPPER.createObjectNode();
    result.put("metadata_location", metadataLocation);
    result.setAll(out);
    ArrayNode written = result.putArray("written_files");
    dataFiles.forEach(f -> written.add(f.location()));

    // "more_appends": further merge appends (table.newAppend(), as Spark's writer commits),
    // one per list of input files, each written by a task of its own; after each the
    // commit's lineage is reported (DumpCommand.lineage).
    JsonNode more = req.get("more_appends");
    if (more != null && more.isArray()) {
      if (!tableSpec.isUnpartitioned() || !table.sortOrder().isUnsorted()) {
        throw new IllegalArgumentException("more_appends supports unsorted, unpartitioned tables");
      }
      ArrayNode commits = result.putArray("commits");
      commits.add(DumpCommand.lineage(metadataLocation));
      int commit = 0;
      for (JsonNode files : more) {
        ++commit;
        ObjectNode next = req.deepCopy();
        next.set("input_files", files);
        OutputFileFactory nextFiles =
            OutputFileFactory.builderFor(table, partitionId, taskId + commit)
                .format(FileFormat.PARQUET)
                .operationId(operationId + "-" + commit)
                .build();
        RollingDataWriter<Record> writer =
            new RollingDataWriter<>(writerFactory, nextFiles, io, targetFileSize, tableSpec, null);
        try {
          forEachInputRow(next, io, tableSchema, writer::write);
        } finally {
          writer.close();
        }
        AppendFiles nextAppend = table.newAppend();
        writer.result().dataFiles().forEach(nextAppend::appendFile);
        nextAppend.commit();
        commits.add(DumpCommand.lineage(ops.current().metadataFileLocation()));
      }
    }
    return result;
  }

  interface RowSink {
    void accept(Record record) throws IOException;
  }

  /**
   * The input rows in the order Spark hands them to a sorted table's writers: Spark's iceberg
   * writer requires each task's rows sorted by {@code SortOrderUtil.buildSortOrder} (the
   * partition fields the sort order does not already cluster, then the sort order), and Spark
   * compares the transformed values its own way: strings by UTF-8 bytes, -0.0 equal to 0.0 and
   * NaN above every number (SQLOrderingUtil, and its sort prefixes), nulls where each field's
   * null order says. Equal keys keep input order (a stable sort; Spark's order of ties is not
   * defined). An unsorted table's rows come in input order.
   */
  static void forEachRowInWriteOrder(
      JsonNode req, FileIO io, Schema schema, Table table, RowSink sink) throws IOException {
    if (table.sortOrder().isUnsorted()) {
      forEachInputRow(req, io, schema, sink);
      return;
    }
    SortOrder ordering = SortOrderUtil.buildSortOrder(table);
    List<SortField> fields = ordering.fields();
    List<Accessor<StructLike>> accessors = new ArrayList<>();
    List<java.util.function.Function<Object, Object>> transforms = new ArrayList<>();
    for (SortField field : fields) {
      accessors.add(schema.accessorForField(field.sourceId()));
      Type type = schema.findType(field.sourceId());
      @SuppressWarnings("unchecked")
      java.util.function.Function<Object, Object> bound =
          (java.util.function.Function<Object, Object>) field.transform().bind(type);
      transforms.add(bound);
    }
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    List<Record> records = new ArrayList<>();
    List<Object[]> keys = new ArrayList<>();
    forEachInputRow(
        req,
        io,
        schema,
        record -> {
          Record copy = record.copy();
          StructLike internal = wrapper.wrap(copy);
          Object[] key = new Object[fields.size()];
          for (int i = 0; i < key.length; ++i) {
            Object value = accessors.get(i).get(internal);
            key[i] = value == null ? null : transforms.get(i).apply(value);
          }
          records.add(copy);
          keys.add(key);
        });
    Integer[] order = new Integer[records.size()];
    for (int i = 0; i < order.length; ++i) {
      order[i] = i;
    }
    Comparator<Integer> byKeys =
        (a, b) -> {
          Object[] x = keys.get(a);
          Object[] y = keys.get(b);
          for (int i = 0; i < fields.size(); ++i) {
            int c = compareAsSpark(x[i], y[i], fields.get(i));
            if (c != 0) {
              return c;
            }
          }
          return 0;
        };
    java.util.Arrays.sort(order, byKeys); // stable for objects
    for (Integer index : order) {
      sink.accept(records.get(index));
    }
  }

  private static int compareAsSpark(Object a, Object b, SortField field) {
    if (a == null || b == null) {
      if (a == b) {
        return 0;
      }
      boolean nullsFirst = field.nullOrder() == NullOrder.NULLS_FIRST;
      return (a == null) == nullsFirst ? -1 : 1;
    }
    int c;
    if (a instanceof Double || a instanceof Float) {
      double x = ((Number) a).doubleValue();
      double y = ((Number) b).doubleValue();
      c = Double.compare(x == 0.0 ? 0.0 : x, y == 0.0 ? 0.0 : y); // -0.0 == 0.0; NaN last
    } else if (a instanceof CharSequence) {
      c = compareUnsigned(
          ByteBuffer.wrap(a.toString().getBytes(StandardCharsets.UTF_8)),
          ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8)));
    } else if (a instanceof ByteBuffer) {
      c = compareUnsigned((ByteBuffer) a, (ByteBuffer) b);
    } else if (a instanceof java.util.UUID) {
      c = a.toString().compareTo(b.toString()); // Spark holds uuids as strings
    } else {
      @SuppressWarnings("unchecked")
      Comparable<Object> comparable = (Comparable<Object>) a;
      c = comparable.compareTo(b);
    }
    return field.direction() == SortDirection.DESC ? -c : c;
  }

  private static int compareUnsigned(ByteBuffer a, ByteBuffer b) {
    int length = Math.min(a.remaining(), b.remaining());
    for (int i = 0; i < length; ++i) {
      int c = Integer.compare(a.get(a.position() + i) & 0xff, b.get(b.position() + i) & 0xff);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.remaining(), b.remaining());
  }

  static void forEachInputRow(JsonNode req, FileIO io, Schema schema, RowSink sink)
      throws IOException {
    JsonNode inputs = required(req, "input_files");
    if (!inputs.isArray()) {
      throw new IllegalArgumentException("input_files must be an array of paths");
    }
    for (JsonNode p : inputs) {
      String path = p.asText();
      try (CloseableIterable<Record> rows =
          Parquet.read(io.newInputFile(path))
              .project(schema)
              .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
              .build()) {
        for (Record record : rows) {
          sink.accept(record);
        }
      }
    }
  }

  private static void verifyIds(
      Schema schema, PartitionSpec spec, SortOrder sortOrder, TableMetadata metadata) {
    List<String> problems = new ArrayList<>();
    Schema got = metadata.schema();
    if (!got.sameSchema(schema)) {
      problems.add("schema changed: " + got + " vs requested " + schema);
    }
    if (got.schemaId() != schema.schemaId()) {
      problems.add("schema-id " + got.schemaId() + " != requested " + schema.schemaId());
    }
    PartitionSpec gotSpec = metadata.spec();
    if (gotSpec.specId() != spec.specId()) {
      problems.add("spec-id " + gotSpec.specId() + " != requested " + spec.specId());
    }
    if (gotSpec.fields().size() != spec.fields().size()) {
      problems.add("partition field count changed");
    } else {
      for (int i = 0; i < spec.fields().size(); i++) {
        PartitionField a = gotSpec.fields().get(i);
        PartitionField b = spec.fields().get(i);
        if (a.fieldId() != b.fieldId()
            || a.sourceId() != b.sourceId()
            || !a.name().equals(b.name())
            || !a.transform().toString().equals(b.transform().toString())) {
          problems.add("partition field " + a + " != requested " + b);
        }
      }
    }
    SortOrder gotOrder = metadata.sortOrder();
    if (gotOrder.orderId() != sortOrder.orderId() || !gotOrder.sameOrder(sortOrder)) {
      problems.add("sort order " + gotOrder + " != requested " + sortOrder);
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "iceberg-java did not keep the requested ids (TableMetadata.Builder assigns schema-id 0, "
              + "spec-id 0, sort order-id 1 to a new table): "
              + String.join("; ", problems));
    }
  }

  private static JsonNode required(JsonNode req, String field) {
    JsonNode n = req.get(field);
    if (n == null || n.isNull()) {
      throw new IllegalArgumentException("write request needs \"" + field + "\"");
    }
    return n;
  }

  private static String requiredText(JsonNode req, String field) {
    JsonNode n = required(req, field);
    if (!n.isTextual()) {
      throw new IllegalArgumentException("\"" + field + "\" must be a string");
    }
    return n.textValue();
  }
}
