package floe.parity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ParityManifestAccess;
import org.apache.iceberg.ParityManifestAccess.LiveEntry;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.schema.PrimitiveType;

/** {@code dump}: decode a table's current snapshot with iceberg-java and print it as JSON. */
final class DumpCommand {
  private DumpCommand() {}

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  static JsonNode run(JsonNode request) throws IOException {
    JsonNode loc = request.get("metadata_location");
    if (loc == null || !loc.isTextual()) {
      throw new IllegalArgumentException("dump request needs \"metadata_location\" (string)");
    }
    boolean rows = request.path("rows").asBoolean(false);
    ObjectNode out = dump(loc.textValue(), rows);
    if (request.path("lineage").asBoolean(false)) {
      out.setAll(lineage(loc.textValue()));
    }
    return out;
  }

  /**
   * Format v3 row lineage as iceberg-java reads it: every row's {@code _row_id} and {@code
   * _last_updated_sequence_number} (inherited from the file's first_row_id and sequence number
   * where the file holds none, by the generic reader's metadata-column readers), the table's
   * next-row-id, the snapshot's first-row-id and added-rows, and each data manifest's
   * first_row_id.
   */
  static ObjectNode lineage(String metadataLocation) throws IOException {
    Opened opened = Opened.at(metadataLocation);
    FileIO io = opened.io();
    TableMetadata metadata = opened.metadata();
    Table table = opened.table();
    Snapshot snapshot = metadata.currentSnapshot();
    ObjectNode out = NODES.objectNode();
    out.put("next_row_id", metadata.nextRowId());
    ArrayNode rows = out.putArray("lineage_rows");
    ArrayNode manifests = out.putArray("manifest_first_row_ids");
    if (snapshot == null) {
      return out;
    }
    putNullable(out, "snapshot_first_row_id", snapshot.firstRowId());
    putNullable(out, "snapshot_added_rows", snapshot.addedRows());
    for (ManifestFile manifest : snapshot.dataManifests(io)) {
      if (manifest.firstRowId() == null) {
        manifests.addNull();
      } else {
        manifests.add(manifest.firstRowId());
      }
    }
    // select() resolves names against the table schema only and drops metadata columns;
    // project() takes the schema as given.
    List<Types.NestedField> columns = new ArrayList<>(metadata.schema().columns());
    columns.add(org.apache.iceberg.MetadataColumns.ROW_ID);
    columns.add(org.apache.iceberg.MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER);
    Schema projection = new Schema(columns);
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).project(projection).build()) {
      for (Record record : records) {
        rows.add(JsonValues.genericToJson(projection.asStruct(), record));
      }
    }
    return out;
  }

  /** A table read from one metadata file, as every command here reads it. */
  record Opened(FileIO io, TableMetadata metadata, Table table) {
    static Opened at(String metadataLocation) {
      FileIO io = new LocalFileIO();
      StaticTableOperations ops = new StaticTableOperations(metadataLocation, io);
      return new Opened(io, ops.current(), new BaseTable(ops, metadataLocation));
    }
  }

  static ObjectNode dump(String metadataLocation, boolean withRows) throws IOException {
    Opened opened = Opened.at(metadataLocation);
    FileIO io = opened.io();
    TableMetadata metadata = opened.metadata();
    Table table = opened.table();
    Snapshot snapshot = metadata.currentSnapshot();

    ObjectNode out = NODES.objectNode();
    out.put("format_version", metadata.formatVersion());
    if (snapshot == null) {
      out.putNull("current_snapshot_id");
      out.putNull("snapshot_summary");
      out.putNull("snapshot_operation");
    } else {
      out.put("current_snapshot_id", snapshot.snapshotId());
      // Snapshot.summary() does not contain "operation"; it is reported separately.
      out.set("snapshot_summary", stringMap(snapshot.summary()));
      out.put("snapshot_operation", snapshot.operation());
    }
    out.set("schema", Harness.MAPPER.readTree(SchemaParser.toJson(metadata.schema())));
    out.put("default_spec_id", metadata.defaultSpecId());
    out.put("default_sort_order_id", metadata.defaultSortOrderId());

    List<ObjectNode> files = new ArrayList<>();
    if (snapshot != null) {
      Map<Integer, PartitionSpec> specs = metadata.specsById();
      for (ManifestFile manifest : snapshot.dataManifests(io)) {
        for (LiveEntry entry : ParityManifestAccess.liveDataEntries(manifest, io, specs)) {
          files.add(fileJson(io, specs, entry));
        }
      }
    }
    files.sort(Comparator.comparing(n -> n.get("path").asText()));
    ArrayNode filesNode = out.putArray("files");
    files.forEach(filesNode::add);

    if (withRows) {
      ArrayNode rowsNode = out.putArray("rows");
      if (snapshot != null) {
        Types.StructType struct = metadata.schema().asStruct();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
          for (Record record : records) {
            rowsNode.add(JsonValues.genericToJson(struct, record));
          }
        }
      }
    }
    return out;
  }

  private static ObjectNode fileJson(FileIO io, Map<Integer, PartitionSpec> specs, LiveEntry entry) {
    DataFile file = entry.file();
    ObjectNode n = NODES.objectNode();
    n.put("path", file.location());
    n.put("format", file.format().name());
    n.put("content", file.content().id());
    n.put("spec_id", file.specId());
    putNullable(n, "sort_order_id", file.sortOrderId());
    n.put("record_count", file.recordCount());
    n.put("file_size_in_bytes", file.fileSizeInBytes());

    PartitionSpec spec = specs.get(file.specId());
    ArrayNode partition = n.putArray("partition");
    StructLike pdata = file.partition();
    List<Types.NestedField> ptypes = spec.partitionType().fields();
    for (int i = 0; i < spec.fields().size(); i++) {
      PartitionField field = spec.fields().get(i);
      Type type = ptypes.get(i).type();
      Object value = pdata.get(i, type.typeId().javaClass());
      ObjectNode p = partition.addObject();
      p.put("name", field.name());
      p.put("transform", field.transform().toString());
      p.put("value_bytes", value == null ? null : JsonValues.hex(Conversions.toByteBuffer(type, value)));
      @SuppressWarnings("unchecked")
      Transform<Object, Object> t = (Transform<Object, Object>) field.transform();
      p.put("human", t.toHumanString(type, value));
    }
    n.put("partition_path", spec.partitionToPath(pdata));

    n.set("column_sizes", longMap(file.columnSizes()));
    n.set("value_counts", longMap(file.valueCounts()));
    n.set("null_value_counts", longMap(file.nullValueCounts()));
    n.set("nan_value_counts", longMap(file.nanValueCounts()));
    n.set("lower_bounds", bytesMap(file.lowerBounds()));
    n.set("upper_bounds", bytesMap(file.upperBounds()));
    if (file.splitOffsets() == null) {
      n.putNull("split_offsets");
    } else {
      ArrayNode a = n.putArray("split_offsets");
      file.splitOffsets().forEach(a::add);
    }
    if (file.equalityFieldIds() == null) {
      n.putNull("equality_ids");
    } else {
      ArrayNode a = n.putArray("equality_ids");
      file.equalityFieldIds().forEach(a::add);
    }
    putNullable(n, "first_row_id", file.firstRowId());
    putNullable(n, "data_sequence_number", entry.dataSequenceNumber());
    putNullable(n, "file_sequence_number", entry.fileSequenceNumber());
    n.put("status", entry.status());
    putNullable(n, "snapshot_id", entry.snapshotId());
    n.set("parquet_footer", footer(io, file));
    return n;
  }

  private static JsonNode footer(FileIO io, DataFile file) {
    if (!"PARQUET".equals(file.format().name())) {
      return NODES.nullNode();
    }
    org.apache.iceberg.io.InputFile in = io.newInputFile(file.location());
    ParquetReadOptions options = ParquetReadOptions.builder(new PlainParquetConfiguration()).build();
    try (ParquetFileReader reader = ParquetFileReader.open(new ParquetInput(in), options)) {
      ParquetMetadata footer = reader.getFooter();
      FileMetaData meta = footer.getFileMetaData();
      ObjectNode f = NODES.objectNode();
      f.put("created_by", meta.getCreatedBy());
      f.set("key_value_metadata", stringMap(meta.getKeyValueMetaData()));
      f.put("root_name", meta.getSchema().getName());
      // Physical and logical types, repetition, names and field ids of every column.
      f.put("schema", meta.getSchema().toString());
      f.put("row_groups", footer.getBlocks().size());
      // extras (not in the brief): per-row-group row counts and the set of column codecs
      ArrayNode rgRows = f.putArray("row_group_row_counts");
      TreeSet<String> codecs = new TreeSet<>();
      for (BlockMetaData block : footer.getBlocks()) {
        rgRows.add(block.getRowCount());
        for (ColumnChunkMetaData col : block.getColumns()) {
          codecs.add(col.getCodec().name());
        }
      }
      // Columns whose first row group has a dictionary page (parquet-java drops a column's
      // dictionary when its first page shows no gain).
      ArrayNode dictionaries = f.putArray("dictionary_columns");
      if (!footer.getBlocks().isEmpty()) {
        for (ColumnChunkMetaData col : footer.getBlocks().get(0).getColumns()) {
          if (col.hasDictionaryPage()) {
            dictionaries.add(col.getPath().toDotString());
          }
        }
      }
      // Columns whose first row group has a column index and an offset index (page indexes),
      // and the float and double columns (parquet-java drops a column index over NaN).
      ArrayNode pageIndexes = f.putArray("page_index_columns");
      ArrayNode floating = f.putArray("floating_point_columns");
      if (!footer.getBlocks().isEmpty()) {
        for (ColumnChunkMetaData col : footer.getBlocks().get(0).getColumns()) {
          if (col.getColumnIndexReference() != null && col.getOffsetIndexReference() != null) {
            pageIndexes.add(col.getPath().toDotString());
          }
          PrimitiveType.PrimitiveTypeName type = col.getPrimitiveType().getPrimitiveTypeName();
          if (type == PrimitiveType.PrimitiveTypeName.FLOAT
              || type == PrimitiveType.PrimitiveTypeName.DOUBLE) {
            floating.add(col.getPath().toDotString());
          }
        }
      }
      ArrayNode codecsNode = f.putArray("codecs");
      codecs.forEach(codecsNode::add);
      return f;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("Cannot read Parquet footer of " + file.location(), e);
    }
  }

  private static void putNullable(ObjectNode n, String key, Number value) {
    if (value == null) {
      n.putNull(key);
    } else if (value instanceof Integer) {
      n.put(key, value.intValue());
    } else {
      n.put(key, value.longValue());
    }
  }

  static JsonNode stringMap(Map<String, String> map) {
    if (map == null) {
      return NODES.nullNode();
    }
    ObjectNode o = NODES.objectNode();
    new TreeMap<>(map).forEach(o::put);
    return o;
  }

  private static JsonNode longMap(Map<Integer, Long> map) {
    if (map == null) {
      return NODES.nullNode();
    }
    ObjectNode o = NODES.objectNode();
    new TreeMap<>(map).forEach((k, v) -> o.put(String.valueOf(k), v));
    return o;
  }

  private static JsonNode bytesMap(Map<Integer, ByteBuffer> map) {
    if (map == null) {
      return NODES.nullNode();
    }
    ObjectNode o = NODES.objectNode();
    new TreeMap<>(map).forEach((k, v) -> o.put(String.valueOf(k), JsonValues.hex(v)));
    return o;
  }

  /** parquet-java InputFile over an iceberg InputFile (no Hadoop FileSystem involved). */
  static final class ParquetInput implements org.apache.parquet.io.InputFile {
    private final org.apache.iceberg.io.InputFile file;

    ParquetInput(org.apache.iceberg.io.InputFile file) {
      this.file = file;
    }

    @Override
    public long getLength() {
      return file.getLength();
    }

    @Override
    public org.apache.parquet.io.SeekableInputStream newStream() {
      org.apache.iceberg.io.SeekableInputStream stream = file.newStream();
      return new DelegatingSeekableInputStream(stream) {
        @Override
        public long getPos() throws IOException {
          return stream.getPos();
        }

        @Override
        public void seek(long newPos) throws IOException {
          stream.seek(newPos);
        }
      };
    }
  }
}
