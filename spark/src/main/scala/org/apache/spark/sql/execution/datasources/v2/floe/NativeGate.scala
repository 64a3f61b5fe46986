package org.apache.spark.sql.execution.datasources.v2.floe

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.iceberg.{FileFormat, HasTableOperations, PartitionSpec, Schema, Table, TableMetadataParser}
import org.apache.iceberg.types.Type.TypeID
import org.apache.iceberg.types.TypeUtil
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.ProjectingInternalRow
import org.apache.spark.sql.catalyst.plans.logical.{AppendData, OverwriteByExpression, OverwritePartitionsDynamic, ReplaceData, V2WriteCommand}
import org.apache.spark.sql.catalyst.util.ReplaceDataProjections
import org.apache.spark.sql.connector.write.Write
import org.apache.spark.sql.execution.datasources.v2.{ReplaceDataExec, V2ExistingTableWriteExec}

/**
 * What an executor's native task needs, made on the driver by [[NativeGate]]. A copy-on-write
 * rewrite's input rows carry more than the table's columns: `rowProjection` picks the
 * table's (Spark's own projection for the write, as its writing task applies it).
 */
case class NativeWrite(
    plan: String,
    specId: Int,
    specs: java.util.Map[Integer, PartitionSpec],
    rowProjection: Option[ProjectingInternalRow] = None)

/**
 * The driver's gate for floe's native write tasks: an allow list over the effective
 * configuration (the table's properties overlaid with the SparkWrite's write properties, in
 * which iceberg-java has already resolved the write's options and `spark.sql.iceberg.*`
 * settings), the table's instantiated LocationProvider, FileIO and encryption, its format
 * version, types, spec and storage — and then floe's own gate, called over JNI with the
 * same inputs (the table's metadata as iceberg-java serialises it) rather than restated
 * here. It fails closed: a check that cannot answer declines. Reasons name settings,
 * never their values.
 */
object NativeGate {
  // Types Spark hands the writer in a form floe's conformer would have to guess at.
  private val DeclinedTypes = Set(TypeID.UUID, TypeID.FIXED, TypeID.TIME,
    TypeID.TIMESTAMP_NANO, TypeID.VARIANT, TypeID.UNKNOWN, TypeID.GEOMETRY, TypeID.GEOGRAPHY)

  // Hadoop settings that reach iceberg-java's Parquet writer but not floe's: none may be set.
  private val IgnoredParquetHadoopKeys = Set("parquet.hadoop.vectored.io.enabled")

  private def field[T](write: Write, name: String): T = {
    var c: Class[_] = write.getClass
    while (c != null) {
      try {
        val f = c.getDeclaredField(name)
        f.setAccessible(true)
        return f.get(write).asInstanceOf[T]
      } catch {
        case _: NoSuchFieldException => c = c.getSuperclass
      }
    }
    throw new NoSuchFieldException(s"SparkWrite.$name")
  }

  /**
   * The write's schema has the table's columns: the same ids, names and types, each
   * required where the table's is (a column the write knows to hold no null may be
   * optional in the table; floe writes what the table says).
   */
  private def sameColumns(write: Schema, table: Schema): Boolean = {
    val written = TypeUtil.indexById(write.asStruct()).asScala
    val columns = TypeUtil.indexById(table.asStruct()).asScala
    written.keySet == columns.keySet && written.forall { case (id, w) =>
      val t = columns(id)
      w.name() == t.name() && (w.isRequired || t.isOptional) &&
        (if (w.`type`().isPrimitiveType) w.`type`() == t.`type`()
         else w.`type`().typeId() == t.`type`().typeId())
    }
  }

  def check(session: SparkSession, command: V2WriteCommand, exec: V2ExistingTableWriteExec)
      : Either[String, NativeWrite] = {
    try checkOrThrow(session, command, exec) catch {
      case e @ (NonFatal(_) | _: LinkageError) =>
        Left(s"the write could not be inspected for floe's native tasks (${e.getClass.getSimpleName})")
    }
  }

  private def checkOrThrow(
      session: SparkSession,
      command: V2WriteCommand,
      exec: V2ExistingTableWriteExec): Either[String, NativeWrite] = {
    val write = exec.write
    if (write.getClass.getName.contains("SparkPositionDeltaWrite")) {
      return Left("merge-on-read writes are not yet written by floe's native tasks")
    }
    val rowProjection = (command, exec) match {
      case (_: AppendData | _: OverwriteByExpression | _: OverwritePartitionsDynamic, _) => None
      // The rewrite's metadata (_file, _pos) only placed the rows; with row lineage (format
      // 3) it carries each row's _row_id and _last_updated_sequence_number for the writer,
      // which floe's tasks do not write yet.
      case (_: ReplaceData, r: ReplaceDataExec) => r.projections match {
        case ReplaceDataProjections(rows, metadata)
            if !metadata.exists(_.schema.fieldNames.contains("_row_id")) => Some(rows)
        case _ => return Left("the copy-on-write rewrite carries row lineage metadata")
      }
      case _ => return Left(s"${command.nodeName} is not written by floe's native tasks")
    }
    FloeNative.loaded match {
      case Left(reason) => return Left(reason)
      case Right(_) =>
    }
    val table = field[Table](write, "table")
    val writeProperties = field[java.util.Map[String, String]](write, "writeProperties").asScala
    val format = field[FileFormat](write, "format")
    val schema = field[Schema](write, "writeSchema")
    val specId = field[Int](write, "outputSpecId")
    val fanout = field[Boolean](write, "useFanoutWriter")
    val queryId = field[String](write, "queryId")
    val targetFileSize = field[Long](write, "targetFileSize")
    val branch = Option(field[String](write, "branch"))
    val wap = field[Boolean](write, "wapEnabled")

    val metadata = table match {
      case t: HasTableOperations => t.operations().current()
      case _ => return Left("the table has no TableOperations")
    }
    val reasons = Seq.newBuilder[String]
    if (format != FileFormat.PARQUET) reasons += "write-format/write.format.default is not parquet"
    if (metadata.formatVersion() > 2) reasons += "format-version is 3"
    if (!sameColumns(schema, table.schema())) {
      reasons += "the write's schema is not the table's current schema"
    }
    if (specId != table.spec().specId()) reasons += "spec-id is not the table's default spec"
    if (!table.sortOrder().isUnsorted) reasons += "the table has a sort order"
    if (branch.exists(_ != "main")) reasons += "the write targets a branch"
    if (wap) reasons += "write.wap.enabled"
    TypeUtil.indexById(schema.asStruct()).asScala.values.map(_.`type`().typeId()).toSet
      .intersect(DeclinedTypes).toSeq.map(_.toString.toLowerCase).sorted
      .foreach(t => reasons += s"a column of type $t")
    val locationProvider = table.locationProvider().getClass.getName
    if (locationProvider != "org.apache.iceberg.LocationProviders$DefaultLocationProvider") {
      reasons += "the table's LocationProvider is not iceberg-java's default"
    }
    val io = table.io().getClass.getName
    if (!Set("org.apache.iceberg.hadoop.HadoopFileIO", "org.apache.iceberg.io.ResolvingFileIO")
        .contains(io)) {
      reasons += s"the table's FileIO ($io)"
    }
    if (table.encryption().getClass.getName != "org.apache.iceberg.encryption.PlaintextEncryptionManager") {
      reasons += "the table's encryption"
    }
    val scheme = Option(new java.net.URI(metadata.location()).getScheme).getOrElse("file")
    if (scheme != "file") reasons += s"a table location of scheme $scheme (local files only yet)"
    // floe's own gate follows write.data.path (and would admit an object store there), but
    // the native tasks are handed no storage settings yet and their JVM-side cleanup only
    // deletes below the table location.
    val effective = table.properties().asScala ++ writeProperties
    if (effective.get("write.data.path").exists(_.nonEmpty)) reasons += "write.data.path is set"
    val parquetHadoopKeys = session.sessionState.newHadoopConf().iterator().asScala
      .map(_.getKey).filter(k => k.startsWith("parquet.") && !IgnoredParquetHadoopKeys(k))
      .toSeq.sorted
    if (parquetHadoopKeys.nonEmpty) {
      reasons += s"Hadoop settings ${parquetHadoopKeys.mkString(", ")}"
    }
    val declined = reasons.result()
    if (declined.nonEmpty) return Left(declined.mkString("; "))

    // The write's effective options, as floe reads them: iceberg-java's resolved write
    // properties, its target file size, and its writer choice.
    val options = writeProperties.toMap ++ Map(
      "write.target-file-size-bytes" -> targetFileSize.toString,
      "write.spark.fanout.enabled" -> fanout.toString)
    val keys = options.keys.toArray.sorted
    val plan = try {
      FloeNative.planWrite(TableMetadataParser.toJson(metadata), keys, keys.map(options),
        queryId, !fanout, session.sparkContext.defaultParallelism)
    } catch {
      case e: IllegalArgumentException => return Left(s"floe's gate: ${e.getMessage}")
    }
    Right(NativeWrite(plan, specId, table.specs(), rowProjection))
  }
}
