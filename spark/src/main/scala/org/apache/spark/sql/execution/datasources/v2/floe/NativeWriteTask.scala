package org.apache.spark.sql.execution.datasources.v2.floe

import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets

import scala.util.control.NonFatal

import org.apache.arrow.c.{ArrowArrayStream, Data}
import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.ipc.ArrowReader
import org.apache.arrow.vector.types.pojo.Schema
import org.apache.iceberg.{DataFile, ManifestContent, ManifestFile, ManifestFiles, PartitionSpec}
import org.apache.iceberg.inmemory.InMemoryInputFile
import org.apache.iceberg.io.{FileIO, InputFile, OutputFile}
import org.apache.spark.TaskContext
import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.WriterCommitMessage
import org.apache.spark.sql.execution.arrow.{ArrowWriter, ColumnarArrowCopier}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.{DataType, StructType}
import org.apache.spark.sql.util.ArrowUtils
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * A Spark task's input as Arrow batches of `sparkSchema`'s Arrow form (as Spark's own
 * conversion makes it), converted in the JVM a batch at a time.
 */
private abstract class TaskArrowReader(
    sparkSchema: StructType,
    timeZoneId: String,
    allocator: BufferAllocator) extends ArrowReader(allocator) {
  private val arrowSchema = ArrowUtils.toArrowSchema(sparkSchema, timeZoneId,
    errorOnDuplicatedFieldNames = true, largeVarTypes = false)
  var rowCount = 0L
  var nanos = 0L

  override def loadNextBatch(): Boolean = {
    val started = System.nanoTime()
    try {
      val n = fill()
      rowCount += n
      n > 0
    } finally nanos += System.nanoTime() - started
  }

  /** Fills the next batch; its row count (0 at the end). */
  protected def fill(): Int

  override protected def readSchema(): Schema = arrowSchema
  override def bytesRead(): Long = 0L
  override protected def closeReadSource(): Unit = ()
}

/** Rows, through Spark's ArrowWriter. */
private class RowsArrowReader(
    rows: Iterator[InternalRow],
    sparkSchema: StructType,
    timeZoneId: String,
    batchRows: Int,
    allocator: BufferAllocator) extends TaskArrowReader(sparkSchema, timeZoneId, allocator) {
  private var writer: ArrowWriter = _

  override protected def fill(): Int = {
    val root = getVectorSchemaRoot
    if (writer == null) writer = ArrowWriter.create(root)
    writer.reset()
    var n = 0
    while (n < batchRows && rows.hasNext) {
      writer.write(rows.next())
      n += 1
    }
    writer.finish()
    n
  }
}

/**
 * A columnar child's batches (a scan's, a cached relation's), copied column by column
 * ([[ColumnarArrowCopier]]) until a batch holds at least `batchRows` rows.
 */
private class BatchesArrowReader(
    batches: Iterator[ColumnarBatch],
    ordinals: Array[Int],
    types: Array[DataType],
    sparkSchema: StructType,
    timeZoneId: String,
    batchRows: Int,
    allocator: BufferAllocator) extends TaskArrowReader(sparkSchema, timeZoneId, allocator) {
  private var copier: ColumnarArrowCopier = _

  override protected def fill(): Int = {
    if (copier == null) {
      copier = new ColumnarArrowCopier(getVectorSchemaRoot, sparkSchema, ordinals, types)
    }
    copier.reset()
    while (copier.count < batchRows && batches.hasNext) copier.append(batches.next())
    copier.finish()
    copier.count
  }
}

/**
 * An executor's native write task: hands the task's rows to floe (Arrow through the C Data
 * Interface), takes the locations of the files it wrote before anything else (a task failure
 * listener deletes them should the task fail from then on), decodes the data files from the
 * message's manifest with iceberg-java's own reader, and wraps them in iceberg-java's
 * genuine SparkWrite.TaskCommit.
 */
object NativeWriteTask extends Logging {
  private val BatchRows = 8192

  /** A task's input: its rows, or its columnar child's batches. */
  sealed trait Input
  final case class Rows(rows: Iterator[InternalRow]) extends Input
  /** Batches whose column `ordinals(i)` (of type `types(i)`) is the write's column `i`. */
  final case class Batches(
      batches: Iterator[ColumnarBatch],
      ordinals: Array[Int],
      types: Array[DataType]) extends Input

  def run(
      plan: String,
      input: Input,
      sparkSchema: StructType,
      timeZoneId: String,
      specId: Int,
      specs: java.util.Map[Integer, PartitionSpec],
      arrowTime: SQLMetric,
      floeTime: SQLMetric): CommitMessages.TaskResult = {
    FloeNative.ensureLoaded()
    val context = TaskContext.get()
    val allocator = ArrowUtils.rootAllocator.newChildAllocator(
      s"floe write task ${context.partitionId()}", 0, Long.MaxValue)
    try {
      val reader = input match {
        case Rows(rows) =>
          new RowsArrowReader(rows, sparkSchema, timeZoneId, BatchRows, allocator)
        case Batches(batches, ordinals, types) =>
          new BatchesArrowReader(batches, ordinals, types, sparkSchema, timeZoneId, BatchRows,
            allocator)
      }
      val payload = try {
        val stream = ArrowArrayStream.allocateNew(allocator)
        val started = System.nanoTime()
        try {
          Data.exportArrayStream(allocator, reader, stream)
          FloeNative.writeTask(plan, stream.memoryAddress(), context.partitionId(),
            context.taskAttemptId())
        } finally {
          stream.close()
          // The rows' conversion runs inside floe's call (floe pulls the batches).
          arrowTime += reader.nanos
          floeTime += System.nanoTime() - started - reader.nanos
        }
      } finally {
        reader.close()
      }
      val (locations, manifest) = split(payload)
      // The files are this task's from here until the task succeeds.
      context.addTaskFailureListener { (_, _) =>
        val failed = try FloeNative.deleteFiles(plan, locations.toArray) catch {
          case NonFatal(_) => locations.size
        }
        if (failed > 0) {
          logWarning(s"floe: $failed files of a failed write task could not be deleted")
        }
      }
      val files = decode(manifest, specId, specs)
      checkFiles(files, locations.toArray, reader.rowCount, context.partitionId())
      // Killed while floe finished its files (the job failed, or another attempt won): the
      // files go with the task, as its result would be dropped.
      context.killTaskIfInterrupted()
      CommitMessages.TaskResult(taskCommit(files), reader.rowCount)
    } finally {
      allocator.close()
    }
  }

  /** The TaskCommit message: the locations block, then the manifest (DESIGN.md). */
  private def split(payload: Array[Byte]): (Seq[String], Array[Byte]) = {
    val buffer = ByteBuffer.wrap(payload) // big-endian
    val count = buffer.getInt()
    val locations = (0 until count).map { _ =>
      val bytes = new Array[Byte](buffer.getInt())
      buffer.get(bytes)
      new String(bytes, StandardCharsets.UTF_8)
    }
    val manifest = new Array[Byte](buffer.remaining())
    buffer.get(manifest)
    (locations, manifest)
  }

  /**
   * The data files of a task's manifest, read by iceberg-java's own reader. The manifest is
   * served from this task's bytes alone: iceberg-java's InMemoryFileIO keeps its files in one
   * map shared by the whole JVM, where two tasks of an executor would read each other's.
   */
  private[floe] def decode(
      manifest: Array[Byte],
      specId: Int,
      specs: java.util.Map[Integer, PartitionSpec]): Array[DataFile] = {
    if (manifest.isEmpty) return Array.empty
    val path = "memory:/floe-task-manifest.avro"
    val reader = ManifestFiles.read(TaskManifest(path, manifest.length.toLong, specId),
      new TaskManifestIO(path, manifest), specs)
    try {
      val out = Array.newBuilder[DataFile]
      reader.forEach(f => out += f.copy())
      out.result()
    } finally {
      reader.close()
    }
  }

  /**
   * The message must describe this task's own write: every data file is one the task
   * reported opening, no file twice, and the files hold every row the task was given. A
   * message that does not fails the task (its files are deleted and the task retried) rather
   * than committing another task's files in place of its own.
   */
  private[floe] def checkFiles(
      files: Array[DataFile],
      locations: Array[String],
      rows: Long,
      partitionId: Int): Unit = {
    val opened = locations.toSet
    val paths = files.map(_.location())
    val foreign = paths.filterNot(opened.contains)
    if (foreign.nonEmpty) {
      throw new IllegalStateException(s"floe: write task $partitionId's commit message names " +
        s"${foreign.length} data files the task did not write, first ${foreign.head}")
    }
    if (paths.distinct.length != paths.length) {
      throw new IllegalStateException(
        s"floe: write task $partitionId's commit message names a data file twice")
    }
    val recorded = files.map(_.recordCount()).sum
    if (recorded != rows) {
      throw new IllegalStateException(s"floe: write task $partitionId was given $rows rows " +
        s"and its data files hold $recorded")
    }
  }

  private lazy val taskCommitConstructor = {
    val c = Class.forName("org.apache.iceberg.spark.source.SparkWrite$TaskCommit")
      .getDeclaredConstructor(classOf[Array[DataFile]])
    c.setAccessible(true)
    c
  }

  /** iceberg-java's own message for these files, with Spark's output metrics reported. */
  private[floe] def taskCommit(files: Array[DataFile]): WriterCommitMessage = {
    val commit = taskCommitConstructor.newInstance(files).asInstanceOf[WriterCommitMessage]
    try {
      val report = commit.getClass.getDeclaredMethod("reportOutputMetrics")
      report.setAccessible(true)
      report.invoke(commit)
    } catch {
      case _: NoSuchMethodException =>
    }
    commit
  }
}

/**
 * A task's in-memory manifest as iceberg-java's reader needs it described: data, not yet
 * committed (the snapshot id and sequence numbers are placeholders the reader requires; the
 * commit assigns the real ones to added files).
 */
private case class TaskManifest(path: String, length: Long, partitionSpecId: Int)
    extends ManifestFile {
  override def content(): ManifestContent = ManifestContent.DATA
  override def sequenceNumber(): Long = 0L
  override def minSequenceNumber(): Long = 0L
  override def snapshotId(): java.lang.Long = 0L
  override def addedFilesCount(): Integer = null
  override def addedRowsCount(): java.lang.Long = null
  override def existingFilesCount(): Integer = null
  override def existingRowsCount(): java.lang.Long = null
  override def deletedFilesCount(): Integer = null
  override def deletedRowsCount(): java.lang.Long = null
  override def partitions(): java.util.List[ManifestFile.PartitionFieldSummary] = null
  override def copy(): ManifestFile = this
}

/** A FileIO that serves one task's manifest, from its bytes, and nothing else. */
private class TaskManifestIO(path: String, bytes: Array[Byte]) extends FileIO {
  override def newInputFile(location: String): InputFile = {
    require(location == path, s"floe: a task's manifest is $path, not $location")
    new InMemoryInputFile(location, bytes)
  }
  override def newOutputFile(location: String): OutputFile =
    throw new UnsupportedOperationException("floe: a task's manifest is read only")
  override def deleteFile(location: String): Unit =
    throw new UnsupportedOperationException("floe: a task's manifest is read only")
}
