package org.apache.spark.sql.execution.datasources.v2.floe

import org.apache.spark.{InterruptibleIterator, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}
import org.apache.spark.sql.connector.write.{BatchWrite, PhysicalWriteInfoImpl, Write}
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.datasources.v2.WritingSparkTask
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

/**
 * The logical anchor of [[FloeIcebergWriteExec]]: AQE re-plans the writer from it, so a
 * re-plan yields the writer alone and never a second committer. It carries the one
 * BatchWrite both operators share.
 */
case class FloeIcebergWriteNode(
    query: LogicalPlan,
    batchWrite: BatchWrite,
    write: Write,
    writingTask: WritingSparkTask[_],
    native: Option[NativeWrite],
    messages: MessageAccumulator,
    output: Seq[Attribute]) extends UnaryNode {
  override def child: LogicalPlan = query
  override def stringArgs: Iterator[Any] = Iterator(query)
  override def producedAttributes: AttributeSet = outputSet
  override protected def withNewChildInternal(newChild: LogicalPlan): FloeIcebergWriteNode =
    copy(query = newChild)
}

/**
 * Writes the data files on the executors, one task per input partition, each emitting one
 * row: the task's commit message ([[CommitMessages]]). With `native` (the gate admitted the
 * write) a task is floe's ([[NativeWriteTask]]: the rows cross to floe as Arrow); without,
 * it is Spark's own writing task for this write (iceberg-java's DataWriter, with Spark's
 * row-level projections for copy-on-write and merge-on-read rows). A failed task deletes
 * the files it wrote either way. A task reads its rows through Spark's InterruptibleIterator,
 * so a task killed mid-write (its job failed, or another attempt won) stops and deletes its
 * files; its message also travels in `messages`, for a task that succeeds too late
 * ([[LateTasks]]).
 */
case class FloeIcebergWriteExec(
    child: SparkPlan,
    batchWrite: BatchWrite,
    write: Write,
    writingTask: WritingSparkTask[_],
    native: Option[NativeWrite],
    messages: MessageAccumulator,
    output: Seq[Attribute]) extends UnaryExecNode {

  override def nodeName: String =
    if (native.isDefined) "FloeIcebergNativeWrite" else "FloeIcebergWrite"

  private lazy val customMetrics: Map[String, SQLMetric] =
    write.supportedCustomMetrics().map { metric =>
      metric.name() -> SQLMetrics.createV2CustomMetric(sparkContext, metric)
    }.toMap

  override lazy val metrics: Map[String, SQLMetric] = customMetrics ++ (
    if (native.isEmpty) Map.empty
    else Map(
      "arrowTime" -> SQLMetrics.createNanoTimingMetric(sparkContext,
        "time producing the input rows and converting them to Arrow"),
      "floeTime" -> SQLMetrics.createNanoTimingMetric(sparkContext,
        "time in floe's write tasks")))

  // Nothing about the write's configuration is printed (FileIO properties can hold secrets).
  override def stringArgs: Iterator[Any] = Iterator.empty
  override def producedAttributes: AttributeSet = outputSet

  import FloeIcebergWriteExec.emit

  override protected def doExecute(): RDD[InternalRow] = {
    val input = child.execute()
    // As Spark's own writer: an input without partitions still runs one (empty) task.
    val rdd = if (input.partitions.isEmpty) {
      sparkContext.parallelize(Seq.empty[InternalRow], 1)
    } else {
      input
    }
    val writerFactory = batchWrite.createBatchWriterFactory(
      PhysicalWriteInfoImpl(rdd.getNumPartitions))
    native match {
      case Some(NativeWrite(plan, specId, specs)) =>
        val schema = child.schema
        val timeZoneId = conf.sessionLocalTimeZone
        val arrowTime = metrics("arrowTime")
        val floeTime = metrics("floeTime")
        val accumulator = messages
        rdd.mapPartitions { rows =>
          val context = TaskContext.get()
          val result = NativeWriteTask.run(plan, new InterruptibleIterator(context, rows),
            schema, timeZoneId, specId, specs, arrowTime, floeTime)
          emit(accumulator, CommitMessages.toBytes(result.message, result.numRows))
        }
      case None =>
        val task = writingTask
        val taskMetrics = customMetrics
        val accumulator = messages
        rdd.mapPartitions { rows =>
          val context = TaskContext.get()
          val result = task.run(writerFactory, context, new InterruptibleIterator(context, rows),
            useCommitCoordinator = false, taskMetrics)
          emit(accumulator, CommitMessages.toBytes(result.writerCommitMessage, result.numRows))
        }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): FloeIcebergWriteExec =
    copy(child = newChild)
}

private object FloeIcebergWriteExec {
  /** A task's one output row, its message also handed to the accumulator. */
  def emit(accumulator: MessageAccumulator, message: Array[Byte]): Iterator[InternalRow] = {
    accumulator.add(message)
    Iterator.single(InternalRow(message))
  }
}
