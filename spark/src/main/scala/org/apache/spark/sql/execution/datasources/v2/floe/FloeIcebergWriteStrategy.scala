package org.apache.spark.sql.execution.datasources.v2.floe

import scala.util.control.NonFatal

import org.apache.floe.spark.FloeConf
import org.apache.spark.internal.Logging
import org.apache.spark.sql.{classic, SparkSession}
import org.apache.spark.sql.catalyst.analysis.NamedRelation
import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.plans.logical.{AppendData, LogicalPlan, OverwriteByExpression, OverwritePartitionsDynamic, ReplaceData, RowLevelWrite, V2WriteCommand, WriteDelta}
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.connector.write.Write
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}
import org.apache.spark.sql.execution.datasources.v2.{DataSourceV2Relation, DataSourceV2Strategy, V2ExistingTableWriteExec}
import org.apache.spark.sql.types.BinaryType

/**
 * Plans Spark's Iceberg writes as floe's split plan when [[FloeConf.WriteEnabled]] is on:
 * {{{
 *   FloeIcebergCommit      driver: collects one commit message per task, BatchWrite.commit once
 *   +- FloeIcebergWrite    executors: writes the data files, one commit message per task (in AQE)
 *      +- <input query>
 * }}}
 * The operators are built from the one Spark's own [[DataSourceV2Strategy]] plans for the same
 * node, so the writing task (with its row-level projections), the cache refresh and the
 * metrics are Spark's own for the running Spark line. A write floe declines keeps that
 * operator, unchanged, with the reason as a tag for [[org.apache.floe.spark.FloeExplainInfo]]
 * and one log line.
 */
case class FloeIcebergWriteStrategy(session: SparkSession) extends SparkStrategy with Logging {
  import FloeIcebergWriteStrategy._

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case node: FloeIcebergWriteNode =>
      // AQE re-plans the write from its anchor: the writer only, never a second committer.
      FloeIcebergWriteExec(planLater(node.query), node.batchWrite, node.write, node.writingTask,
        node.native, node.messages, node.output) :: Nil
    case command: V2WriteCommand if isRecognisedCommand(command) =>
      FloeConf.writeEnabled(session.sessionState.conf) match {
        case Right(false) => Nil
        case enabled => split(command, enabled.left.toOption)
      }
    case _ => Nil
  }

  private def split(command: V2WriteCommand, badFlag: Option[String]): Seq[SparkPlan] = {
    val stock = new DataSourceV2Strategy(session.asInstanceOf[classic.SparkSession])(command)
    stock match {
      case Seq(exec: V2ExistingTableWriteExec) if isIcebergWrite(exec.write) =>
        val table = relationName(command)
        val native = FloeConf.nativeTasks(session.sessionState.conf) match {
          case Right(false) => Right(None)
          case Right(true) => NativeGate.check(session, command, exec).map(Some(_))
          case Left(reason) => Left(reason)
        }
        badFlag.orElse(declineReason(command, exec)).orElse(native.left.toOption) match {
          case Some(why) =>
            logWarning(s"floe: the Iceberg write to $table keeps Spark's plan: $why")
            exec.setTagValue(DeclinedTag, why)
            exec :: Nil
          case None =>
            buildSplit(command, exec, table, native.toOption.flatten) :: Nil
        }
      case _ => Nil
    }
  }

  private def declineReason(command: V2WriteCommand, exec: V2ExistingTableWriteExec)
      : Option[String] = {
    try {
      if (icebergTable(command).isEmpty) {
        Some("the target relation is not iceberg-java's SparkTable")
      } else if (exec.write.toBatch.useCommitCoordinator()) {
        Some("the write asks for Spark's commit coordinator")
      } else {
        None
      }
    } catch {
      // Fails closed: a check that cannot answer declines.
      case NonFatal(e) => Some(s"the write could not be inspected (${e.getClass.getSimpleName})")
    }
  }

  private def buildSplit(
      command: V2WriteCommand,
      exec: V2ExistingTableWriteExec,
      table: String,
      native: Option[NativeWrite]): SparkPlan = {
    val batchWrite = exec.write.toBatch // one instance for the writer and the committer
    val message = AttributeReference(MessageColumn, BinaryType, nullable = false)()
    val messages = new MessageAccumulator // the tasks' messages, for tasks that end late
    messages.register(session.sparkContext, countFailedValues = true)
    val anchor = FloeIcebergWriteNode(command.query, batchWrite, exec.write, exec.writingTask,
      native, messages, Seq(message))
    val writer = FloeIcebergWriteExec(exec.query, batchWrite, exec.write, exec.writingTask,
      native, messages, Seq(message))
    writer.setLogicalLink(anchor)
    val target = icebergTable(command).get
    FloeIcebergCommitExec(writer, batchWrite, exec.write, exec.refreshCache, table,
      operationName(command), native.isDefined, () => target, messages.id)
  }
}

object FloeIcebergWriteStrategy {
  /** The one column of the writer's output: a task's serialised commit message. */
  val MessageColumn = "floe_iceberg_commit_message"

  /** Why floe left a write on Spark's own operator (setting names only, never values). */
  val DeclinedTag: TreeNodeTag[String] = TreeNodeTag[String]("floe.declined")

  private val IcebergWriteClasses = Set(
    "org.apache.iceberg.spark.source.SparkWrite",
    "org.apache.iceberg.spark.source.SparkPositionDeltaWrite")

  private def isRecognisedCommand(command: V2WriteCommand): Boolean = command match {
    case a: AppendData => a.write.isDefined
    case o: OverwriteByExpression => o.write.isDefined
    case o: OverwritePartitionsDynamic => o.write.isDefined
    case r: ReplaceData => r.write.isDefined
    case w: WriteDelta => w.write.isDefined
    case _ => false
  }

  def isIcebergWrite(write: Write): Boolean =
    Iterator.iterate[Class[_]](write.getClass)(_.getSuperclass).takeWhile(_ != null)
      .exists(c => IcebergWriteClasses.contains(c.getName))

  def operationName(command: V2WriteCommand): String = command match {
    case _: AppendData => "append"
    case _: OverwriteByExpression => "overwrite by expression"
    case _: OverwritePartitionsDynamic => "dynamic partition overwrite"
    case _: ReplaceData => "copy-on-write"
    case _: WriteDelta => "merge-on-read"
    case _ => command.nodeName
  }

  private def targetRelation(command: V2WriteCommand): NamedRelation = command match {
    case r: RowLevelWrite => r.originalTable
    case other => other.table
  }

  def relationName(command: V2WriteCommand): String = targetRelation(command).name

  /** The iceberg-java table behind the write's target, when it is a SparkTable. */
  def icebergTable(command: V2WriteCommand): Option[org.apache.iceberg.Table] =
    targetRelation(command) match {
      case r: DataSourceV2Relation => r.table match {
        case t: org.apache.iceberg.spark.source.SparkTable => Some(t.table())
        case _ => None
      }
      case _ => None
    }

  /** One line per Iceberg write in `plan`: split by floe, or Spark's own and why. */
  def describe(plan: SparkPlan): Seq[String] = {
    val lines = Seq.newBuilder[String]
    def visit(p: SparkPlan): Unit = {
      p match {
        case c: FloeIcebergCommitExec =>
          val tasks = if (c.native) "floe's native tasks" else "iceberg-java writer tasks"
          lines += s"${c.table}: ${c.operation} through floe's split plan ($tasks)"
        case w: FloeIcebergWriteExec if w.native.isDefined =>
          val arrow = w.metrics("arrowTime").value / 1000000
          val floe = w.metrics("floeTime").value / 1000000
          val input =
            if (FloeIcebergWriteExec.columnarInput(w.child).isDefined) "columnar batches"
            else "rows"
          lines += s"native tasks: input as $input"
          if (arrow + floe > 0) {
            lines += s"native tasks: input to Arrow $arrow ms, floe writing $floe ms " +
              "(summed over tasks)"
          }
        case e: V2ExistingTableWriteExec =>
          e.getTagValue(DeclinedTag).foreach(why => lines += s"${e.nodeName}: declined: $why")
        case _ =>
      }
      p match {
        case a: AdaptiveSparkPlanExec => visit(a.executedPlan)
        case s: QueryStageExec => visit(s.plan)
        case _ => p.children.foreach(visit)
      }
    }
    visit(plan)
    lines.result()
  }
}
