package org.apache.spark.sql.execution.datasources.v2.floe

import scala.util.control.NonFatal

import org.apache.iceberg.io.FileIO
import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.connector.write.{BatchWrite, Write, WriterCommitMessage}
import org.apache.spark.sql.execution.{SparkPlan, SQLExecution, UnaryExecNode}
import org.apache.spark.sql.execution.datasources.v2.V2CommandExec
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

/**
 * Commits a split write on the driver, exactly once (a V2 command: `run` is memoised), outside
 * AQE. It runs the writer's job itself and takes each task's commit message as that task
 * finishes, so a job that fails after some tasks completed still knows their files: it calls
 * iceberg-java's `BatchWrite.abort` with them, as Spark's own writer does, and then deletes
 * those files through the table's FileIO (iceberg-java's abort leaves them unless a commit
 * failed). A failed commit is iceberg-java's: `BatchWrite.abort` on the genuine messages.
 */
case class FloeIcebergCommitExec(
    query: SparkPlan,
    batchWrite: BatchWrite,
    write: Write,
    refreshCache: () => Unit,
    table: String,
    operation: String,
    native: Boolean,
    io: () => FileIO) extends V2CommandExec with UnaryExecNode {

  override def child: SparkPlan = query
  override def output: Seq[Attribute] = Nil

  // The table's name and the operation only: the write's configuration can hold secrets.
  override def stringArgs: Iterator[Any] = Iterator(table, operation)

  private lazy val driverMetrics: Map[String, SQLMetric] =
    write.supportedCustomMetrics().map { metric =>
      metric.name() -> SQLMetrics.createV2CustomMetric(sparkContext, metric)
    }.toMap

  override lazy val metrics: Map[String, SQLMetric] = driverMetrics

  override protected def run(): Seq[InternalRow] = {
    val rdd = query.execute()
    val messages = new Array[WriterCommitMessage](rdd.partitions.length)
    try {
      sparkContext.runJob(
        rdd,
        (_: TaskContext, rows: Iterator[InternalRow]) => rows.map(_.getBinary(0)).toArray,
        rdd.partitions.indices,
        (index: Int, payload: Array[Array[Byte]]) => {
          require(payload.length == 1,
            s"floe: write task $index of $table emitted ${payload.length} commit messages")
          val result = CommitMessages.fromBytes(payload(0))
          messages(index) = result.message
          batchWrite.onDataWriterCommit(result.message)
        })
    } catch {
      case cause: Throwable =>
        abortAfterJobFailure(messages, cause)
        throw cause
    }
    try {
      logInfo(s"floe: committing the $operation to $table (${messages.length} task messages)")
      try {
        SparkLineShim.commit(batchWrite, messages, query)
      } catch {
        case cause: Throwable =>
          try batchWrite.abort(messages) catch {
            case NonFatal(t) => cause.addSuppressed(t)
          }
          throw cause
      }
    } finally {
      postDriverMetrics()
    }
    refreshCache()
    Nil
  }

  private def abortAfterJobFailure(messages: Array[WriterCommitMessage], cause: Throwable): Unit = {
    try batchWrite.abort(messages) catch {
      case NonFatal(t) => cause.addSuppressed(t)
    }
    val files = messages.filter(_ != null).flatMap(WrittenFiles.locations).toSeq
    if (files.nonEmpty) {
      logWarning(s"floe: the write to $table failed; deleting the ${files.size} files its " +
        "completed tasks wrote")
      WrittenFiles.deleteAll(io(), files, (path, e) =>
        logWarning(s"floe: could not delete $path after a failed write to $table", e))
    }
  }

  private def postDriverMetrics(): Unit = {
    val updated = write.reportDriverMetrics().toSeq.flatMap { metric =>
      driverMetrics.get(metric.name()).map { m => m.set(metric.value()); m }
    }
    val executionId = sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)
    SQLMetrics.postDriverMetricUpdates(sparkContext, executionId, updated)
  }

  override protected def withNewChildInternal(newChild: SparkPlan): FloeIcebergCommitExec =
    copy(query = newChild)
}
