package org.apache.spark.sql.execution.datasources.v2.floe

import scala.util.control.NonFatal

import org.apache.iceberg.Table
import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
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
 * A task attempt that succeeds after its job ended (the job failed, or another attempt of the
 * task won) has its result dropped by Spark; [[LateTasks]] still sees its message, and its
 * files are deleted once the job's tasks have ended.
 */
case class FloeIcebergCommitExec(
    query: SparkPlan,
    batchWrite: BatchWrite,
    write: Write,
    refreshCache: () => Unit,
    table: String,
    operation: String,
    native: Boolean,
    icebergTable: () => Table,
    messagesAccumulatorId: Long) extends V2CommandExec with UnaryExecNode {

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
    val tasks = new LateTasks(sparkContext, messagesAccumulatorId)
    try {
      runJob(rdd, messages, tasks)
      WrittenFiles.sharedDataFile(messages).foreach { path =>
        val cause = new IllegalStateException(
          s"floe: two tasks of the $operation to $table report the same data file $path")
        abortAfterJobFailure(messages, tasks, cause)
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
        // Attempts whose result the job dropped (another attempt of their task won): no
        // commit names their files, whatever became of this one.
        // The bus is not drained (a slow listener elsewhere must not hold every write up):
        // attempts this listener has not seen yet are left, as Spark's own plan leaves them.
        deleteUnclaimed(tasks, messages, LateTasks.AfterSuccessMs, drainBus = false)
      }
    } finally {
      tasks.close()
    }
    refreshCache()
    Nil
  }

  /** Runs the write's job, taking each task's message as the task finishes. */
  private def runJob(
      rdd: RDD[InternalRow],
      messages: Array[WriterCommitMessage],
      tasks: LateTasks): Unit = {
    val previous = sparkContext.getLocalProperty(LateTasks.JobProperty)
    sparkContext.setLocalProperty(LateTasks.JobProperty, tasks.writeId)
    try {
      sparkContext.runJob(
        rdd,
        (_: TaskContext, rows: Iterator[InternalRow]) => rows.map(_.getBinary(0)).toArray,
        rdd.partitions.indices,
        (index: Int, payload: Array[Array[Byte]]) => {
          require(payload.length == 1,
            s"floe: write task $index of $table emitted ${payload.length} commit messages")
          val result = CommitMessages.fromBytes(payload(0))
          tasks.taken(payload(0))
          messages(index) = result.message
          batchWrite.onDataWriterCommit(result.message)
        })
    } catch {
      case cause: Throwable =>
        abortAfterJobFailure(messages, tasks, cause)
        throw cause
    } finally {
      sparkContext.setLocalProperty(LateTasks.JobProperty, previous)
    }
  }

  /**
   * After a failed job: iceberg-java's abort, then the deletion of every file a task of this
   * job reported, from the messages the job took and from attempts that succeeded after the
   * job had failed (Spark drops their results).
   */
  private def abortAfterJobFailure(
      messages: Array[WriterCommitMessage],
      tasks: LateTasks,
      cause: Throwable): Unit = {
    try batchWrite.abort(messages) catch {
      case NonFatal(t) => cause.addSuppressed(t)
    }
    if (deleteUnclaimed(tasks, Array.empty, LateTasks.AfterFailureMs, drainBus = true,
        messages.toSeq)) {
      deleteNamedForThisWrite()
    }
  }

  /**
   * Last, once every task of the failed job has ended: the files below the table's data
   * location named with this write's query id. A task whose writer's abort failed (an
   * interrupted thread cannot even close the file it must delete) reported them to no one.
   */
  private def deleteNamedForThisWrite(): Unit = {
    try {
      WrittenFiles.queryId(write).foreach { id =>
        deleteReported(WrittenFiles.namedFor(icebergTable(), id),
          s"the failed $operation to $table left behind (named with its query id, reported by " +
            "no task)")
      }
    } catch {
      case NonFatal(e) => logWarning(s"floe: cleaning up after the $operation to $table", e)
    }
  }

  /**
   * Deletes the files of every message below (`taken`, and each attempt that succeeded, as
   * [[LateTasks]] saw them once the job's tasks have all ended) that `kept` does not name:
   * only files this write's own tasks reported are ever deleted. True when every task of the
   * job had ended.
   */
  private def deleteUnclaimed(
      tasks: LateTasks,
      kept: Array[WriterCommitMessage],
      waitMs: Long,
      drainBus: Boolean,
      taken: Seq[WriterCommitMessage] = Nil): Boolean = {
    try {
      val (late, ended) = tasks.awaitEnd(waitMs, drainBus)
      if (!ended) {
        logWarning(s"floe: tasks of the $operation to $table were still running " +
          s"${waitMs / 1000} s after its job ended; files they finish later are not deleted")
      }
      val keep = kept.filter(_ != null).flatMap(WrittenFiles.locations).toSet
      val reported = (taken.filter(_ != null) ++
        late.flatMap(bytes => Option(CommitMessages.fromBytes(bytes).message)))
        .flatMap(WrittenFiles.locations)
      deleteReported(reported.distinct.filterNot(keep.contains),
        s"tasks of the $operation to $table wrote and no commit names")
      ended
    } catch {
      // Best effort: never replaces the write's own outcome.
      case NonFatal(e) =>
        logWarning(s"floe: cleaning up after the $operation to $table", e)
        false
    }
  }

  /** Deletes `files` (this write's own, `why` says how it knows), each failure logged. */
  private def deleteReported(files: Seq[String], why: String): Unit =
    if (files.nonEmpty) {
      logWarning(s"floe: deleting ${files.size} files that $why")
      WrittenFiles.deleteAll(icebergTable().io(), files, (path, e) =>
        logWarning(s"floe: could not delete $path after the $operation to $table", e))
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
