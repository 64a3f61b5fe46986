package org.apache.spark.sql.execution.datasources.v2.floe

import org.apache.spark.{InterruptibleIterator, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}
import org.apache.spark.sql.connector.write.{BatchWrite, PhysicalWriteInfoImpl, Write}
import org.apache.spark.sql.catalyst.expressions.{Alias, Cast, CreateNamedStruct, Expression, GetStructField, If, IsNull, Literal}
import org.apache.spark.sql.execution.{ColumnarToRowExec, InputAdapter, ProjectExec, SparkPlan, UnaryExecNode, WholeStageCodegenExec}
import org.apache.spark.sql.types.{ByteType, IntegerType, ShortType, StructType}
import org.apache.spark.sql.execution.datasources.v2.WritingSparkTask
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

/**
 * A columnar plan whose batches hold a write's rows: the write's column `i` is the batches'
 * column `ordinals(i)`.
 */
final case class ColumnarInput(plan: SparkPlan, ordinals: Array[Int])

object ColumnarInput {
  def all(plan: SparkPlan): ColumnarInput = ColumnarInput(plan, plan.output.indices.toArray)
}

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

  override protected def doExecute(): RDD[InternalRow] = native match {
    case Some(write) => executeNative(write)
    case None => executeJvm()
  }

  /** Floe's tasks: the columnar child's batches when it has one, else the child's rows. */
  private def executeNative(write: NativeWrite): RDD[InternalRow] = {
    val NativeWrite(plan, specId, specs, rowProjection) = write
    // The table's columns: the child's, or those a copy-on-write's projection picks.
    val schema = rowProjection.map(_.schema).getOrElse(child.schema)
    val picked = rowProjection.map(_.colOrdinals.toArray).getOrElse(child.output.indices.toArray)
    val timeZoneId = conf.sessionLocalTimeZone
    val arrowTime = metrics("arrowTime")
    val floeTime = metrics("floeTime")
    val accumulator = messages
    // A function value over the values above: the tasks' closures must not carry the plan.
    val task: NativeWriteTask.Input => Iterator[InternalRow] = { input =>
      val result = NativeWriteTask.run(plan, input, schema, timeZoneId, specId, specs,
        arrowTime, floeTime)
      emit(accumulator, CommitMessages.toBytes(result.message, result.numRows))
    }
    FloeIcebergWriteExec.columnarInput(child) match {
      case Some(ColumnarInput(columnar, childOrdinals)) =>
        val batches = nonEmpty(columnar.executeColumnar())
        createWriterFactory(batches)
        val types = columnar.output.map(_.dataType).toArray
        val ordinals = picked.map(childOrdinals)
        batches.mapPartitions { b =>
          task(NativeWriteTask.Batches(new InterruptibleIterator(TaskContext.get(), b),
            ordinals, ordinals.map(types)))
        }
      case None =>
        val rows = nonEmpty(child.execute())
        createWriterFactory(rows)
        rows.mapPartitions { r =>
          val input = new InterruptibleIterator(TaskContext.get(), r)
          task(NativeWriteTask.Rows(rowProjection match {
            case Some(projection) =>
              // A task's own (it wraps one row at a time); `copy()` would copy values.
              val row = ProjectingInternalRow(projection.schema, projection.colOrdinals)
              input.map { r => row.project(r); row }
            case None => input
          }))
        }
    }
  }

  /** iceberg-java's tasks: Spark's own writing task for this write. */
  private def executeJvm(): RDD[InternalRow] = {
    val rdd = nonEmpty(child.execute())
    val writerFactory = createWriterFactory(rdd)
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

  /** As Spark's own writer: an input without partitions still runs one (empty) task. */
  private def nonEmpty[T: scala.reflect.ClassTag](input: RDD[T]): RDD[T] =
    if (input.partitions.isEmpty) sparkContext.parallelize(Seq.empty[T], 1) else input

  // iceberg-java's writer factory, made once per job as Spark's writer does (floe's tasks do
  // not use it; iceberg-java prepares the write in it).
  private def createWriterFactory(rdd: RDD[_]) =
    batchWrite.createBatchWriterFactory(PhysicalWriteInfoImpl(rdd.getNumPartitions))

  override protected def withNewChildInternal(newChild: SparkPlan): FloeIcebergWriteExec =
    copy(child = newChild)
}

private[floe] object FloeIcebergWriteExec {
  /**
   * Where floe's tasks can take `child`'s rows straight from a columnar plan's batches: when
   * `child` only turns the batches into rows (Spark's ColumnarToRow transition, alone or in a
   * codegen stage) or makes rows or batches alike (a cached relation of primitive columns),
   * under projections that only pick, widen or re-wrap columns (what Spark plans to fit a
   * file's columns to a table: byte and short widened to int, a struct re-wrapped field by
   * field). Anything else keeps the rows.
   */
  def columnarInput(child: SparkPlan): Option[ColumnarInput] = child match {
    case WholeStageCodegenExec(stage) => inStage(stage)
    case other => inStage(other)
  }

  private def inStage(plan: SparkPlan): Option[ColumnarInput] = plan match {
    case ColumnarToRowExec(InputAdapter(columnar)) => Some(ColumnarInput.all(columnar))
    case ColumnarToRowExec(columnar) => Some(ColumnarInput.all(columnar))
    // A plan that makes either (a cache of primitive columns): Spark asked it for rows.
    case InputAdapter(both) if both.supportsColumnar => Some(ColumnarInput.all(both))
    case both if both.supportsColumnar => Some(ColumnarInput.all(both))
    case ProjectExec(list, inner) =>
      inStage(inner).flatMap { below =>
        val picked = list.map(e => sourceColumn(e, inner.output))
        if (picked.forall(_.isDefined)) {
          Some(below.copy(ordinals = picked.map(i => below.ordinals(i.get)).toArray))
        } else {
          None
        }
      }
    case _ => None
  }

  /** The input column `e` carries unchanged but for a widening or a struct's re-wrap. */
  private def sourceColumn(e: Expression, input: Seq[Attribute]): Option[Int] = {
    def ordinal(a: Attribute): Option[Int] =
      Some(input.indexWhere(_.exprId == a.exprId)).filter(_ >= 0)
    e match {
      case Alias(inner, _) => sourceColumn(inner, input)
      case a: Attribute => ordinal(a)
      case Cast(a: Attribute, IntegerType, _, _) if a.dataType == ByteType ||
          a.dataType == ShortType => ordinal(a)
      case If(IsNull(a: Attribute), Literal(null, _), CreateNamedStruct(parts))
          if rewraps(a, parts) => ordinal(a)
      case _ => None
    }
  }

  /** Whether `parts` (name, value pairs) rebuild struct `a` field by field, in order. */
  private def rewraps(a: Attribute, parts: Seq[Expression]): Boolean = a.dataType match {
    case struct: StructType =>
      val values = parts.grouped(2).collect { case Seq(_, value) => value }.toSeq
      values.length == struct.length && values.zipWithIndex.forall {
        case (GetStructField(b: Attribute, i, _), j) => b.exprId == a.exprId && i == j
        case _ => false
      }
    case _ => false
  }

  /** A task's one output row, its message also handed to the accumulator. */
  def emit(accumulator: MessageAccumulator, message: Array[Byte]): Iterator[InternalRow] = {
    accumulator.add(message)
    Iterator.single(InternalRow(message))
  }
}
